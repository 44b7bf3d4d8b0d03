// Reacting at once (docs/operations.md#which-trigger-sees-what), end to end: the real
// `llmgw run` against the simulated fleet and a real bare remote, its schedule a year
// away. A push to the remote is applied by a tick the --poll starts; a signed push
// webhook starts a tick at once; an unsigned or wrongly signed one gets 401 and starts
// nothing; llmgw's own pushes never start a poll tick.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHmac } from 'node:crypto';
import { request } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../src/cli/main.js';
import { git } from '../../src/demo/git-remote.js';
import { modelsYaml } from '../fixtures/config-yaml.js';
import { captureIo } from '../helpers/io.js';
import { startE2E, type E2E } from './fleet-world.js';

const SECRET = 'e2e-push-secret';
const NEVER = '0 0 1 1 *';
let e: E2E;
let dir: string;

test.before(async () => {
  e = await startE2E({ modelsYaml: modelsYaml([{ name: 'small', replicas: 1 }]) });
  dir = await mkdtemp(join(tmpdir(), 'llmgw-react-'));
});
test.after(async () => {
  await e.close();
  await rm(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

function post(url: string, headers: Record<string, string>, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

test('a push is applied by a poll tick, a signed webhook ticks at once, an unsigned one is 401; own pushes start nothing', async () => {
  const c = captureIo({ env: { ...e.env, LLMGW_PUSH_SECRET: SECRET }, cwd: dir });
  const argv = [
    'run',
    '--schedule',
    NEVER,
    '--remote',
    e.world.remote,
    '--workdir',
    join(dir, 'wd'),
    '--poll',
    '1s',
    '--listen',
    '127.0.0.1:0',
    '--demand-poll',
    'off',
  ];
  const done = main(argv, c.io);
  const lines = () =>
    c
      .out()
      .split('\n')
      .filter(Boolean)
      .map((l) => l.replace(/^\S+ /, ''));
  const ticks = () => lines().flatMap((l) => /^tick \((\w+)\)/.exec(l)?.[1] ?? []);
  try {
    const url = await until('the receiver', () => lines().flatMap((l) => /^receiving push webhooks at (\S+)$/.exec(l)?.[1] ?? [])[0]);
    assert.ok(url.startsWith('http://127.0.0.1:'));
    assert.not.ok(c.out().includes(SECRET), 'the secret is never logged');
    await until('the start tick', () => (ticks().length >= 1 ? true : undefined));
    assert.equal(ticks(), ['start']);

    await e.push(
      {
        'models.yaml': modelsYaml([
          { name: 'small', replicas: 1 },
          { name: 'extra', replicas: 1 },
        ]),
      },
      'Add extra',
    );
    await until('the poll tick', () => (ticks().includes('poll') ? true : undefined));
    assert.ok(lines().some((l) => /^poll: origin main moved to [0-9a-f]{12}/.test(l)));
    // The poll tick applied the push: extra-0 is on the fleet and STATUS.md in the remote names it.
    await until('extra-0 on the fleet', async () => ((await e.replicasOnFleet()).some((r) => r.id === 'extra-0') ? true : undefined));
    assert.match(await git(e.world.remote, ['show', 'main:STATUS.md']), /extra/);

    const body = JSON.stringify({ ref: 'refs/heads/main' });
    assert.is(await post(url, {}, body), 401);
    assert.is(await post(url, { 'x-hub-signature-256': `sha256=${createHmac('sha256', 'wrong').update(body).digest('hex')}` }, body), 401);
    assert.is(await post(url, { 'x-gitlab-token': 'guess' }, body), 401);
    const before = ticks().length;
    assert.is(await post(url, { 'x-hub-signature-256': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}` }, body), 202);
    await until('the webhook tick', () => (ticks().length > before ? true : undefined));
    // Poll looks went by after each of llmgw's own pushes (the start and poll ticks committed): none started a tick.
    assert.equal(ticks(), ['start', 'poll', 'webhook'], 'refused webhooks and own pushes start nothing');
    assert.ok(lines().some((l) => l === 'push webhook (github): ticking'));
  } finally {
    process.kill(process.pid, 'SIGTERM');
    assert.is(await done, 0);
  }
});

test.run();
