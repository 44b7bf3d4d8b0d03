import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tickSummary } from '../../src/tick/report.js';
import type { TickOptions } from '../../src/tick/run.js';
import { handlerTransport, type CannedFleet } from '../fixtures/canned-fleet.js';
import { modelsYaml } from '../fixtures/config-yaml.js';
import { NOW_MS } from '../fixtures/now.js';
import { minuteEachRead, tickClusterYaml, tickNodes, tickWorld, type TickWorld } from '../fixtures/tick-world.js';
import { git } from '../../src/demo/git-remote.js';
import { main } from '../../src/cli/main.js';
import { captureIo } from '../helpers/io.js';
import type { Transport } from '../../src/types/transport.js';

const CLUSTER = tickClusterYaml({ nodes: 4, routers: ['rt-1'] });
const models = (replicas: number) => modelsYaml([{ name: 'm', gpus: 8, replicas }]);

/** The tick world on a clock that moves a minute at each read, its log kept in `lines`. */
interface Setup extends Omit<TickWorld, 'tick' | 'close'> {
  tick: (o?: Partial<TickOptions>) => ReturnType<TickWorld['tick']>;
  close: () => Promise<void>;
  lines: string[];
}

async function setup(): Promise<Setup> {
  const world = await tickWorld({ cluster: CLUSTER, models: models(2), nodes: tickNodes(4), prefix: 'tick' });
  const lines: string[] = [];
  const now = minuteEachRead();
  return { ...world, lines, tick: (o = {}) => world.tick(0, { now, log: (l) => lines.push(l), ...o }) };
}

const applies = (c: CannedFleet) => c.calls.filter((x) => x.endsWith('agent apply'));

test('a tick applies the plan, then commits the three generated files with a message saying what it did', async () => {
  const { dir, close, canned, tick } = await setup();
  const r = await tick();
  assert.equal([r.applied, r.outcome!.started, r.outcome!.failed], [true, 2, 0]);
  assert.is(await git(dir, ['log', '-1', '--format=%an|%s']), 'llmgw|llmgw: started m ×2 (t)');
  assert.equal((await git(dir, ['show', '--name-only', '--format=', 'HEAD'])).split('\n').sort(), ['.llmgw/observed.json', '.llmgw/state.json', 'STATUS.md']);
  const observed = await readFile(join(dir, '.llmgw/observed.json'), 'utf8');
  assert.match(observed, /"state": "starting"/); // the fleet as the tick leaves it
  assert.equal(
    [...canned.replicas.values()]
      .flat()
      .map((x) => x.id)
      .sort(),
    ['m-0', 'm-1'],
  );
  await close();
});

test("with cluster.yaml git.email, the tick's commit is by llmgw at that email, author and committer", async () => {
  const world = await tickWorld({ cluster: `${CLUSTER}git: { email: ops@corp.example }\n`, models: models(2), nodes: tickNodes(4), prefix: 'tick' });
  const r = await world.tick(0, { now: minuteEachRead(), log: () => undefined });
  assert.ok(r.commit);
  assert.is(await git(world.dir, ['log', '-1', '--format=%an <%ae>|%cn <%ce>']), 'llmgw <ops@corp.example>|llmgw <ops@corp.example>');
  await world.close();
});

test('the next tick sees them running and commits; a steady tick after that commits nothing', async () => {
  const { dir, close, tick } = await setup();
  await tick();
  const second = await tick();
  assert.ok(second.commit);
  assert.match(await readFile(join(dir, '.llmgw/observed.json'), 'utf8'), /"state": "running"/);
  const third = await tick();
  assert.equal([third.plan!.actions.length, third.commit], [0, null]);
  assert.is(await git(dir, ['status', '--porcelain']), '');
  await close();
});

test('a committed STATUS.md is exactly `llmgw status` of the committed config, observed.json and state.json at observedAt', async () => {
  const { dir, close, tick } = await setup();
  for (let i = 0; i < 3; i++) {
    // The clock moves a minute each time it is read: the tick must judge the fleet at the one time it observed it.
    assert.ok((await tick()).commit);
    const observedAt = JSON.parse(await readFile(join(dir, '.llmgw/observed.json'), 'utf8')).observedAt;
    const c = captureIo({ cwd: dir, env: {} });
    assert.is(await main(['status', '--format', 'markdown', '--observed', '.llmgw/observed.json', '--now', observedAt], c.io), 0, c.err());
    assert.is(c.out(), await readFile(join(dir, 'STATUS.md'), 'utf8'));
    await writeFile(join(dir, 'models.yaml'), models(3 - i));
    await git(dir, ['commit', '--quiet', '-am', `scale to ${3 - i}`]);
  }
  await close();
});

test('uncommitted edits to models.yaml are planned but nothing is applied, and the tick says why', async () => {
  const { dir, close, canned, tick, lines } = await setup();
  await writeFile(join(dir, 'models.yaml'), models(3));
  const r = await tick();
  assert.equal(r.dirtyConfig, ['models.yaml']);
  assert.is(r.applied, false);
  assert.is(r.plan!.actions.length, 3);
  assert.equal(applies(canned), []);
  assert.ok(lines.some((l) => l.startsWith('uncommitted edits to models.yaml')));
  await close();
});

test('uncommitted edits never reach the committed STATUS.md: it keeps the committed desired count, and a steady fleet commits nothing', async () => {
  const { dir, close, canned, tick } = await setup();
  await tick();
  await tick();
  const head = await git(dir, ['rev-parse', 'HEAD']);
  const before = applies(canned).length;
  await writeFile(join(dir, 'models.yaml'), models(3));
  const r = await tick();
  assert.equal([r.dirtyConfig, r.applied, r.plan!.actions.map((a) => a.op), r.commit], [['models.yaml'], false, ['start'], null]);
  assert.is(await git(dir, ['rev-parse', 'HEAD']), head);
  assert.match(await readFile(join(dir, 'STATUS.md'), 'utf8'), /\| m \| 2 \| 2 \| 0 \| 0 \|/);
  assert.is(applies(canned).length, before);
  await close();
});

test('invalid uncommitted edits are reported line by line, never turned into the invalid-config block nor config.invalid', async () => {
  const { dir, close, tick, lines } = await setup();
  await tick();
  await writeFile(join(dir, 'models.yaml'), models(2).replace('gpus: 8', 'gpus: 0'));
  const r = await tick();
  assert.equal([r.configInvalid, r.applied, r.plan, r.events.includes('config.invalid')], [false, false, null, false]);
  assert.ok(
    lines.some((l) => /^ {2}models\.yaml:4:\d+: models\[0\]\.gpus: must be >= 1$/.test(l)),
    lines.join('\n'),
  );
  assert.not.match(await git(dir, ['show', 'HEAD:STATUS.md']), /invalid/i);
  assert.not.match(await readFile(join(dir, '.llmgw/state.json'), 'utf8'), /config\.invalid/);
  await close();
});

test('a replica a report shows failed is a failed start: recorded once in state.json, and its replacement placed on another node', async () => {
  const { dir, close, canned, tick } = await setup();
  await tick();
  const [node, list] = [...canned.replicas].find(([, l]) => l.some((x) => x.id === 'm-0'))!;
  canned.replicas.set(
    node,
    list.map((x) => (x.id === 'm-0' ? { ...x, state: 'failed' as const } : x)),
  );
  const r = await tick();
  const start = r.plan!.actions.find((a) => a.op === 'start')!;
  assert.equal(
    r.plan!.actions.map((a) => `${a.op} ${a.replica}`),
    ['stop m-0', 'start m-2'],
  );
  assert.is.not(start.placement[0]!.node, node);
  const recorded = JSON.parse(await readFile(join(dir, '.llmgw/state.json'), 'utf8')).startFailures;
  assert.equal(
    recorded.map((f: { node: string; model: string; replica: string }) => [f.node, f.model, f.replica]),
    [[node, 'm', 'm-0']],
  );
  assert.ok(r.events.includes('apply.failed'), 'somebody hears of the failed start');
  assert.equal((await tick()).events, [], 'once: the next tick neither records nor notifies it again');
  await close();
});

test('a lease that runs out before an apply could finish (two connect+command timeouts) means nothing is applied', async () => {
  const { close, canned, tick } = await setup();
  const t = new Date(NOW_MS);
  const r = await tick({ now: () => t, leaseExpiresAt: new Date(t.getTime() + 139_000) });
  assert.equal([r.applied, r.leaseLost, r.plan!.actions.length], [false, true, 2]);
  assert.equal(applies(canned), []);
  assert.match(tickSummary(r), /^2 action\(s\) planned; nothing applied \(the lease ran out\); /);
  await close();
});

test('a lease that ran out during the tick means nothing is committed nor notified: another holder may be acting, and will notify', async () => {
  const { dir, close, canned, tick, lines } = await setup();
  let posts = 0;
  const hook = createServer((_req, res) => void (posts++, res.end()));
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  await writeFile(join(dir, 'cluster.yaml'), CLUSTER + `notify:\n  webhooks:\n    - url: http://127.0.0.1:${(hook.address() as AddressInfo).port}/\n`);
  await git(dir, ['commit', '--quiet', '-am', 'notify']);
  try {
    let t = NOW_MS;
    const inner = handlerTransport(canned);
    const slowApply: Transport = {
      async run(target, command, input) {
        if (!command.endsWith('agent apply')) return inner.run(target, command, input);
        t += 300_000;
        return JSON.stringify({ version: 1, results: [{ replica: JSON.parse(input).start[0].replica, op: 'start', ok: false, error: 'CUDA error' }] });
      },
      close: async () => undefined,
    };
    const r = await tick({ now: () => new Date(t), transport: slowApply, leaseExpiresAt: new Date(t + 200_000) });
    assert.equal([r.applied, r.leaseLost, r.commit, r.events.includes('apply.failed')], [true, true, null, true]);
    assert.ok(lines.some((l) => l.startsWith('the lease ran out during the tick')));
    assert.match(tickSummary(r), /; no commit \(the lease ran out\)$/);
    assert.is(await git(dir, ['log', '--format=%s']), 'notify\nseed');
    assert.is(posts, 0);
  } finally {
    hook.closeAllConnections();
    await new Promise((r) => hook.close(r));
  }
  await close();
});

test('a ${VAR} unset at reconcile time is an error: nothing applied, config.invalid, the block names file:line:col', async () => {
  const { dir, close, canned, tick } = await setup();
  await writeFile(join(dir, 'cluster.yaml'), CLUSTER + 'notify:\n  webhooks:\n    - url: ${HOOK_URL}\n');
  await git(dir, ['commit', '--quiet', '-am', 'notify']);
  const r = await tick();
  assert.equal([r.configInvalid, r.applied, r.events], [true, false, ['config.invalid']]);
  assert.equal(canned.calls, []);
  assert.match(r.status, /^> cluster\.yaml:15:12: notify\.webhooks\[0\]\.url: environment variable HOOK_URL is not set$/m);
  assert.equal((await tick({ env: { HOOK_URL: 'http://127.0.0.1:9/hook' }, notify: false })).configInvalid, false);
  await close();
});

test('a plan that stops more than maxStopFraction is blocked: shown, nothing applied', async () => {
  const { dir, close, canned, tick } = await setup();
  await tick();
  await tick();
  await writeFile(join(dir, 'models.yaml'), models(0));
  await git(dir, ['commit', '--quiet', '-am', 'scale to zero']);
  const before = applies(canned).length;
  const r = await tick();
  assert.ok(r.blocked);
  assert.is(r.applied, false);
  assert.is(applies(canned).length, before);
  assert.is(await git(dir, ['log', '-1', '--format=%s']), 'llmgw: plan blocked, nothing applied (t)');
  // Loud: the committed STATUS.md and status report say so, and somebody hears of it, once.
  assert.is(r.report!.blocked, r.blocked);
  const status = await readFile(join(dir, 'STATUS.md'), 'utf8');
  assert.ok(status.includes(`- the plan is blocked, nothing is applied: ${r.blocked}`), status);
  assert.not.match(status, /Nothing needs attention/);
  assert.ok(r.events.includes('plan.blocked'));
  assert.not.ok((await tick()).events.includes('plan.blocked'), 'once per transition');
  await close();
});

test('a failed start is recorded in state.json and never stops the other start', async () => {
  const { dir, close, canned, tick } = await setup();
  const inner = handlerTransport(canned);
  const failing: Transport = {
    async run(target, command, input) {
      if (target.name === 'g1' && command.endsWith('apply'))
        return JSON.stringify({ version: 1, results: [{ replica: JSON.parse(input).start[0].replica, op: 'start', ok: false, error: 'CUDA error' }] });
      return inner.run(target, command, input);
    },
    close: async () => undefined,
  };
  const r = await tick({ transport: failing });
  assert.equal([r.outcome!.started, r.outcome!.failed], [1, 1]);
  const state = JSON.parse(await readFile(join(dir, '.llmgw/state.json'), 'utf8'));
  assert.equal(
    state.startFailures.map((f: { node: string; model: string; error: string }) => [f.node, f.model, f.error]),
    [['g1', 'm', 'CUDA error']],
  );
  assert.ok(r.events.includes('apply.failed'));
  await close();
});

test.run();
