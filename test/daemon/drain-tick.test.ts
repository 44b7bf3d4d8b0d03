// A drain across ticks and across a restart of the reconciler (docs/safety.md#stopping-a-replica):
// state.json carries it, so a new process reading the committed repo continues
// it, keeps the replica out of every table, and stops it only once the router
// reports nothing in flight for it.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { minuteEachRead, tickClusterYaml, tickNodes, tickWorld } from '../fixtures/tick-world.js';
import { openConfigRepo } from '../../src/git/config-repo.js';
import type { AgentApplyRequest, RouterEndpoints } from '../../src/types/snapshot.js';
import type { State } from '../../src/types/state.js';

const models = (replicas: number) => `apiVersion: llmgw/v1
kind: Models
models:
  - { name: m, weights: org/m, engine: vllm, gpus: 8, replicas: ${replicas}, stopGrace: 5s }
`;

test('a restarted reconciler continues a drain: the replica stays out of every table until the router has nothing in flight, then stops with its grace', async () => {
  const tables: RouterEndpoints[] = [];
  const stops: AgentApplyRequest['stop'][] = [];
  const world = await tickWorld({
    cluster: tickClusterYaml({ nodes: 2, routers: ['rt-1'] }),
    models: models(2),
    nodes: tickNodes(2),
    prefix: 'drain-tick',
    transport: (inner) => ({
      async run(target, command, input) {
        if (command.endsWith('router endpoints')) tables.push(JSON.parse(input) as RouterEndpoints);
        if (command.endsWith('agent apply')) stops.push(...[(JSON.parse(input) as AgentApplyRequest).stop].filter((s) => s.length > 0));
        return inner.run(target, command, input);
      },
      close: async () => undefined,
    }),
  });
  const { dir, canned } = world;
  const now = minuteEachRead();
  // Each tick is a reconciler started afresh on the checkout: nothing carried over in memory.
  const tick = async () => world.tick(0, { repo: await openConfigRepo({ dir, env: process.env }), now });
  const state = async () => JSON.parse(await readFile(join(dir, '.llmgw/state.json'), 'utf8')) as State;
  const routed = () => tables.at(-1)!.models.m!.map((e) => e.replica);
  try {
    await tick();
    await tick();
    assert.equal(routed(), ['m-0', 'm-1']);

    await world.commit({ 'models.yaml': models(1) }, 'scale down');
    // Both in use (a replica with requests in flight is never the idler one), so the surplus is m-1, the higher index.
    canned.inflight = { 'm-0': 1, 'm-1': 2 };
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
    await world.close();
  }
});

test.run();
