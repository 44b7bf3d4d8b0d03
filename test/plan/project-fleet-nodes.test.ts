// Which nodes a projection (src/plan/project-fleet.ts) edits and how: only the
// reports of reached nodes change; a node it does not know, a node it did not
// reach and a node without a report are left as they are, and a replica of a
// model it cannot hash carries no spec.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildFleet } from '../../src/fleet/build-fleet.js';
import { projectFleet } from '../../src/plan/project-fleet.js';
import type { StartAction, StopAction } from '../../src/types/plan.js';
import { emptyState } from '../../src/types/state.js';
import { makeConfig, makeFleet, NOW } from '../fixtures/index.js';
import { projectionSnapshot } from './projection-world.js';

const start = (model: string, placement: StartAction['placement']): StartAction => ({
  op: 'start',
  replica: `${model}-0`,
  model,
  port: 8001,
  placement,
  weights: 'none',
  reason: '1 of 1 replica missing',
});

test('a started replica of a model whose engine cluster.yaml does not define, or of a model not in models.yaml, carries no spec', () => {
  const config = makeConfig({ nodes: [{ name: 'a1' }, { name: 'a2' }, { name: 'a3' }], models: [{ name: 'm', engine: 'sglang' }] });
  const fleet = buildFleet(config, projectionSnapshot(), emptyState(), NOW);
  const after = projectFleet(fleet, { started: [start('m', [{ node: 'a2', gpus: [0] }]), start('gone', [{ node: 'a2', gpus: [1] }])], stopped: [] });
  assert.equal(after.nodeByName.get('a2')!.report!.replicas, [
    { id: 'm-0', model: 'm', gpus: [0], state: 'starting', endpoint: 'http://a2:8001', port: 8001, rank: 0 },
    { id: 'gone-0', model: 'gone', gpus: [1], state: 'starting', endpoint: 'http://a2:8001', port: 8001, rank: 0 },
  ]);
  assert.equal(
    after.replicas.map((r) => [r.id, r.state, r.spec]),
    [
      ['gone-0', 'starting', null],
      ['m-0', 'starting', null],
      ['old-0', 'running', null],
      ['x-0', 'running', null],
    ],
  );
});

test('a stop that names a node the fleet does not know (gone from cluster.yaml) removes the replica from the reached nodes it names, and nothing else', () => {
  const config = makeConfig({ nodes: [{ name: 'a1' }, { name: 'a2' }, { name: 'a3' }], models: [{ name: 'old' }] });
  const fleet = buildFleet(config, projectionSnapshot(), emptyState(), NOW);
  const stop: StopAction = {
    op: 'stop',
    replica: 'old-0',
    model: 'old',
    placement: [
      { node: 'b9', gpus: [0] },
      { node: 'a1', gpus: [0] },
    ],
    reason: 'removed',
    waitFor: [],
  };
  const after = projectFleet(fleet, { started: [], stopped: [stop] });
  assert.equal(after.nodeByName.get('a1')!.report!.replicas, []);
  assert.equal(
    after.nodes.map((n) => n.name),
    ['a1', 'a2', 'a3'],
  );
  assert.equal(
    after.replicas.map((r) => r.id),
    ['x-0'],
  );
});

test('a start whose head node the fleet does not know: the other ranks are told a URL built from the head node name', () => {
  const config = makeConfig({ nodes: [{ name: 'a1' }, { name: 'a2' }, { name: 'a3' }], models: [{ name: 'm', gpus: 1, nodes: 2 }] });
  const fleet = buildFleet(config, projectionSnapshot(), emptyState(), NOW);
  const after = projectFleet(fleet, {
    started: [
      start('m', [
        { node: 'b9', gpus: [0] },
        { node: 'a2', gpus: [3] },
      ]),
    ],
    stopped: [],
  });
  assert.equal(
    after.nodeByName.get('a2')!.report!.replicas.map((r) => [r.id, r.rank, r.gpus, r.endpoint]),
    [['m-0', 1, [3], 'http://b9:8001']],
  );
  assert.equal(
    after.nodes.map((n) => n.name),
    ['a1', 'a2', 'a3'],
  );
});

test('a node llmgw did not reach keeps its last report as it was, even when a start was placed on it', () => {
  const config = makeConfig({ nodes: [{ name: 'a1' }, { name: 'a2' }, { name: 'a3' }], models: [{ name: 'm', gpus: 1, nodes: 2 }] });
  const fleet = buildFleet(config, projectionSnapshot(), emptyState(), NOW);
  assert.is(fleet.nodeByName.get('a3')!.condition, 'unreachable');
  const after = projectFleet(fleet, {
    started: [
      start('m', [
        { node: 'a2', gpus: [1] },
        { node: 'a3', gpus: [1] },
      ]),
    ],
    stopped: [],
  });
  assert.is(after.nodeByName.get('a3'), fleet.nodeByName.get('a3'));
  assert.equal(
    after.nodeByName.get('a3')!.report!.replicas.map((r) => r.id),
    ['x-0'],
  );
  assert.equal(
    after.nodeByName.get('a2')!.report!.replicas.map((r) => [r.id, r.rank]),
    [['m-0', 0]],
  );
});

test('a reached node with no report at all is passed through untouched: the projection only edits reports', () => {
  // A hand-built fleet (test/fixtures/fleet.ts): reachable, never reported.
  const fleet = makeFleet({ nodes: [{ name: 'a1' }], models: [{ name: 'm' }] });
  assert.is(fleet.nodeByName.get('a1')!.report, null);
  const after = projectFleet(fleet, { started: [start('m', [{ node: 'a1', gpus: [0] }])], stopped: [] });
  assert.is(after.nodeByName.get('a1'), fleet.nodeByName.get('a1'));
  assert.equal(after.replicas, []);
});

test('a reached node the projection edits has reason null, even when the fleet handed in left it out', () => {
  // A hand-built fleet: its nodes have no `reason` key; a1 reports its holdings.
  const fleet = makeFleet({ nodes: [{ name: 'a1', holds: ['org/m'] }], models: [{ name: 'm' }] });
  assert.is(fleet.nodeByName.get('a1')!.reason, undefined);
  const after = projectFleet(fleet, { started: [start('m', [{ node: 'a1', gpus: [0] }])], stopped: [] });
  const a1 = after.nodeByName.get('a1')!;
  assert.equal([a1.condition, a1.unreachableSince, a1.error, a1.reason], ['reachable', null, null, null]);
  assert.equal(
    a1.report!.replicas.map((r) => r.id),
    ['m-0'],
  );
});

test.run();
