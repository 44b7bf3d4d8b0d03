// A tick sends an event only once it is committed with its id, and what a
// webhook is owed survives ticks that cannot deliver it — a receiver down, a
// cluster.yaml broken for a while — to be sent under that same id.
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runTick } from '../../src/tick/run.js';
import { cannedFleet, handlerTransport } from '../fixtures/canned-fleet.js';
import { git } from '../../src/demo/git-remote.js';
import { openConfigRepo } from '../../src/git/config-repo.js';
import type { State } from '../../src/types/state.js';

const cluster = (url: string) => `apiVersion: llmgw/v1
kind: Cluster
name: t
ssh: { user: llmgw, knownHosts: /dev/null }
fabrics: [ib-a]
nodes:
  - { name: "g[1-2]", fabric: ib-a }
engines:
  vllm: { command: [vllm, serve, "{weightsPath}", --port, "{port}"] }
notify:
  webhooks:
    - url: ${url}
`;
const MODELS = `apiVersion: llmgw/v1
kind: Models
models:
  - { name: ghost, weights: org/ghost, engine: vllm, gpuClass: NOPE, gpus: 1, replicas: 1 }
`;

test('an event is committed with its id before it is sent, and stays owed through a broken cluster.yaml until the hook takes it', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'llmgw-outbox-'));
  let up = false;
  const got: { id: string; committedAtHead: boolean }[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = String(req.headers['webhook-id']);
      const head = execFileSync('git', ['show', 'HEAD:.llmgw/state.json'], { cwd: dir, encoding: 'utf8' });
      got.push({ id, committedAtHead: head.includes(id) });
      res.writeHead(up ? 200 : 503).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  try {
    await git(dir, ['init', '--quiet', '--initial-branch=main']);
    await writeFile(join(dir, 'cluster.yaml'), cluster(url));
    await writeFile(join(dir, 'models.yaml'), MODELS);
    await git(dir, ['add', '-A']);
    await git(dir, ['commit', '--quiet', '-m', 'seed']);
    const repo = await openConfigRepo({ dir, env: process.env });
    const transport = handlerTransport(cannedFleet({ nodes: ['g1', 'g2'] }));
    let minute = 0;
    const tick = () =>
      runTick({ repo, transport, env: {}, now: () => new Date(Date.parse('2026-11-29T08:00:00Z') + minute++ * 60_000), push: false, log: () => undefined });
    const outbox = async () => (JSON.parse(await readFile(join(dir, '.llmgw/state.json'), 'utf8')) as State).outbox;

    const first = await tick();
    assert.ok(first.events.includes('model.unplaceable'));
    const owed = await outbox();
    assert.is(owed.length, 1);
    assert.ok(got.length > 0 && got.every((g) => g.committedAtHead && g.id === owed[0]!.id), 'sent only once committed, under its committed id');

    await writeFile(join(dir, 'cluster.yaml'), 'apiVersion: llmgw/v1\nkind: Cluster\nname: [\n');
    await git(dir, ['commit', '--quiet', '-am', 'a broken cluster.yaml']);
    await tick();
    assert.equal(
      (await outbox()).map((o) => o.id),
      [owed[0]!.id],
      'the hook is unknown while cluster.yaml is broken: still owed',
    );

    await writeFile(join(dir, 'cluster.yaml'), cluster(url));
    await git(dir, ['commit', '--quiet', '-am', 'fixed']);
    up = true;
    await tick();
    assert.equal(await outbox(), []);
    assert.equal([...new Set(got.map((g) => g.id))], [owed[0]!.id]);
    assert.match(await git(dir, ['log', '-1', '--format=%s']), /^llmgw: notified 1 event \(t\)$/);
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
