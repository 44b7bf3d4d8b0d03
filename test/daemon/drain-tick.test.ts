// A drain across ticks and across a restart of the reconciler (docs/safety.md#stopping-a-replica):
// state.json carries it, so a new process reading the committed repo continues
// it, keeps the replica out of every table, and stops it only once the router
// reports nothing in flight for it.

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runTick } from '../../src/tick/run.js';
import { cannedFleet, handlerTransport } from '../fixtures/canned-fleet.js';
import { git } from '../../src/demo/git-remote.js';
import { openConfigRepo } from '../../src/git/config-repo.js';
import type { AgentApplyRequest, RouterEndpoints } from '../../src/types/snapshot.js';
import type { State } from '../../src/types/state.js';

const CLUSTER = `apiVersion: llmgw/v1
kind: Cluster
name: t
ssh: { user: llmgw, knownHosts: /dev/null }
fabrics: [ib-a]
nodes:
  - { name: "g[1-2]", fabric: ib-a }
routers:
  - { name: rt-1 }
engines:
  vllm: { command: [vllm, serve, "{weightsPath}", --port, "{port}"] }
safety: { maxStopFraction: 0.5, minReachableFraction: 0.5 }
`;
const models = (replicas: number) => `apiVersion: llmgw/v1
kind: Models
models:
  - { name: m, weights: org/m, engine: vllm, gpus: 8, replicas: ${replicas}, stopGrace: 5s }
`;

test('a restarted reconciler continues a drain: the replica stays out of every table until the router has nothing in flight, then stops with its grace', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'llmgw-drain-tick-'));
  await git(dir, ['init', '--quiet', '--initial-branch=main']);
  await writeFile(join(dir, 'cluster.yaml'), CLUSTER);
  await writeFile(join(dir, 'models.yaml'), models(2));
  await git(dir, ['add', '-A']);
  await git(dir, ['commit', '--quiet', '-m', 'seed']);
  const canned = cannedFleet({ nodes: ['g1', 'g2'] });
  const tables: RouterEndpoints[] = [];
  const stops: AgentApplyRequest['stop'][] = [];
  const transport = handlerTransport({
    async handler(ctx) {
      if (ctx.command.endsWith('router endpoints')) tables.push(JSON.parse(ctx.stdin) as RouterEndpoints);
      if (ctx.command.endsWith('agent apply')) stops.push(...[(JSON.parse(ctx.stdin) as AgentApplyRequest).stop].filter((s) => s.length > 0));
      return canned.handler(ctx);
    },
  });
  let minute = 0;
  // Each tick is a reconciler started afresh on the checkout: nothing carried over in memory.
  const tick = async () =>
    runTick({
      repo: await openConfigRepo({ dir, env: process.env }),
      transport,
      env: {},
      now: () => new Date(Date.parse('2026-11-29T08:00:00Z') + minute++ * 60_000),
      push: false,
      log: () => undefined,
    });
  const state = async () => JSON.parse(await readFile(join(dir, '.llmgw/state.json'), 'utf8')) as State;
  const routed = () => tables.at(-1)!.models.m!.map((e) => e.replica);
  try {
    await tick();
    await tick();
    assert.equal(routed(), ['m-0', 'm-1']);

    await writeFile(join(dir, 'models.yaml'), models(1));
    await git(dir, ['commit', '--quiet', '-am', 'scale down']);
    canned.inflight = { 'm-1': 2 };
    const drain = await tick();
    assert.equal(
      drain.plan!.actions.map((a) => `${a.op} ${a.replica} ${a.op === 'stop' ? a.phase : ''}`),
      ['stop m-1 drain'],
    );
    assert.equal(routed(), ['m-0']);
    assert.equal(stops, []);
    assert.equal(Object.keys((await state()).lifecycle!.draining), ['m-1']);
    assert.match(await readFile(join(dir, 'STATUS.md'), 'utf8'), /- Draining before a stop \(out of every router.*\): m-1\n/);

    const busy = await tick();
    assert.equal(busy.plan!.actions, [], 'requests still in flight on it: it waits');
    assert.equal(routed(), ['m-0'], 'never put back in a table while its stop is intended');
    assert.equal(
      busy.report!.replicas.map((r) => `${r.id} ${r.state}`),
      ['m-0 running', 'm-1 draining'],
    );

    canned.inflight = {};
    const done = await tick();
    assert.equal(
      done.plan!.actions.map((a) => `${a.op} ${a.replica} ${a.op === 'stop' ? a.reason : ''}`),
      ['stop m-1 surplus (2 of 1); drained'],
    );
    assert.equal(stops, [[{ replica: 'm-1', graceSeconds: 5 }]]);
    assert.is((await state()).lifecycle, undefined);
    assert.equal(
      [...canned.replicas.values()].flat().map((r) => r.id),
      ['m-0'],
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test.run();
