// `llmgw report` over commits that real ticks made (src/daemon/tick.ts, agents
// answered in-process): the commits ConfigRepo writes are llmgw's by the one
// rule, and the last one counts forward at the fleet it committed.

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { main } from '../../src/cli/main.js';
import { runTick } from '../../src/tick/run.js';
import { cannedFleet, handlerTransport } from '../fixtures/canned-fleet.js';
import { git } from '../../src/demo/git-remote.js';
import { openConfigRepo } from '../../src/git/config-repo.js';
import { captureIo } from '../helpers/io.js';

const CLUSTER = `apiVersion: llmgw/v1
kind: Cluster
name: t
ssh: { user: llmgw, knownHosts: /dev/null }
fabrics: [ib-a]
nodes:
  - { name: "g[1-6]", fabric: ib-a }
engines:
  vllm: { command: [vllm, serve, "{weightsPath}", --port, "{port}"] }
notify:
  webhooks: [{ url: "http://127.0.0.1:9/hook" }]
lostAfter: 10m
`;
const MODELS = `apiVersion: llmgw/v1
kind: Models
models:
  - { name: a, weights: org/a, engine: vllm, gpus: 4, replicas: 2 }
  - { name: b, weights: org/b, engine: vllm, gpus: 8, replicas: 1 }
`;
const T0 = Date.parse('2026-11-29T08:00:00Z');

test('after real ticks: one hour past the last tick counts its fleet, 48 GPUs, 16 of them held by a and b', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'llmgw-report-ticks-'));
  await git(dir, ['init', '--quiet', '--initial-branch=main']);
  await writeFile(join(dir, 'cluster.yaml'), CLUSTER);
  await writeFile(join(dir, 'models.yaml'), MODELS);
  await git(dir, ['add', '-A']);
  await git(dir, ['commit', '--quiet', '-m', 'seed']);
  const repo = await openConfigRepo({ dir, env: process.env });
  const canned = cannedFleet({ nodes: ['g1', 'g2', 'g3', 'g4', 'g5', 'g6'] });
  for (const min of [0, 1, 2]) {
    await runTick({
      repo,
      transport: handlerTransport(canned),
      env: {},
      now: () => new Date(T0 + min * 60_000),
      push: false,
      log: () => undefined,
      notify: false,
    });
  }
  // The last tick's commit, by author time (what report reads): the clock's, whatever the tick's injected now.
  const [last] = (await git(dir, ['log', '-1', '--format=%aI', '--author=llmgw@localhost'])).trim().split('\n');
  assert.ok(last, 'a tick committed');
  const since = new Date(Date.parse(last)).toISOString();
  const until = new Date(Date.parse(last) + 3_600_000).toISOString();
  const c = captureIo({ cwd: dir, env: { PATH: process.env.PATH } });
  assert.is(await main(['report', '--repo', dir, '--since', since, '--until', until, '--format', 'json'], c.io), 0, c.err());
  const j = JSON.parse(c.out()) as { models: { model: string; serving: number; idle: number; transit: number }[]; fleet: Record<string, number> };
  const held = (m: string) => {
    const row = j.models.find((x) => x.model === m)!;
    return row.serving + row.idle + row.transit;
  };
  assert.equal(
    j.models.map((m) => m.model),
    ['a', 'b'],
  );
  assert.is(held('a'), 8);
  assert.is(held('b'), 8);
  // No routers: idleness is unknown, never idle.
  assert.is(j.fleet.idle, 0);
  assert.is(j.fleet.free, 32);
  assert.is(j.fleet.unobserved, 0);
  assert.is(
    Object.values(j.fleet).reduce((s, x) => s + x, 0),
    48,
  );
  await rm(dir, { recursive: true, force: true });
});

test.run();
