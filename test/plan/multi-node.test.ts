import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { planFleet } from '../../src/plan/plan-fleet.js';
import type { StartAction } from '../../src/types/plan.js';
import { emptyState } from '../../src/types/state.js';
import { makeFleet, oneRank } from '../fixtures/index.js';
import { lowestCommonPort, type NodeCapacity } from '../../src/plan/capacity.js';

const starts = (plan: ReturnType<typeof planFleet>) => plan.actions.filter((a): a is StartAction => a.op === 'start');
const nodesOf = (s: StartAction) => s.placement.map((p) => p.node);

test('a 2-node replica never spans fabrics: free GPUs on another fabric are no capacity', () => {
  const fleet = makeFleet({
    nodes: [
      { name: 'a1', fabric: 'ib-a', cls: 'H200' },
      { name: 'b1', fabric: 'ib-b', cls: 'H200' },
    ],
    models: [{ name: 'ds', gpus: 8, nodes: 2, gpuClass: 'H200' }],
  });
  const plan = planFleet(fleet, emptyState());
  assert.is(starts(plan).length, 0);
  assert.equal(plan.unplaceable, [{ model: 'ds', missing: 1, reason: 'needs 2 whole H200 nodes in one fabric; free whole H200 nodes: ib-a 1, ib-b 1' }]);
});

test('a node with any replica, an unhealthy GPU or mixed classes is not a free whole node', () => {
  const fleet = makeFleet({
    nodes: [
      { name: 'a1', unhealthy: [7] },
      { name: 'a2', classes: ['H100', 'H100', 'H100', 'H100', 'A100', 'A100', 'A100', 'A100'] },
      { name: 'a3' },
      { name: 'a4' },
    ],
    replicas: [oneRank('x-0', 'a3', [0])],
    models: [{ name: 'x' }, { name: 'ds', gpus: 4, nodes: 2 }],
  });
  const plan = planFleet(fleet, emptyState());
  assert.is(starts(plan).length, 0);
  assert.is(plan.unplaceable[0]!.reason, 'needs 2 whole nodes in one fabric; free whole nodes: ib-a 1');
});

test('multi-node: k whole nodes in one fabric, holders first then by name, lowest gpus indices on each, one port', () => {
  const fleet = makeFleet({
    nodes: [{ name: 'a1' }, { name: 'a2' }, { name: 'a3', holds: ['org/ds'] }, { name: 'b1', fabric: 'ib-b' }, { name: 'b2', fabric: 'ib-b' }],
    models: [{ name: 'ds', gpus: 4, nodes: 2 }],
  });
  const s = starts(planFleet(fleet, emptyState()))[0]!;
  assert.equal(s.placement, [
    { node: 'a3', gpus: [0, 1, 2, 3] },
    { node: 'a1', gpus: [0, 1, 2, 3] },
  ]);
  assert.is(s.weights, 'fabric');
  assert.is(s.port, 8000);
});

test('multi-node fabric choice: more chosen holders, then a holding fabric, then best fit, then name', () => {
  const base = [
    { name: 'a1', fabric: 'ib-a' },
    { name: 'a2', fabric: 'ib-a' },
    { name: 'a3', fabric: 'ib-a' },
    { name: 'b1', fabric: 'ib-b' },
    { name: 'b2', fabric: 'ib-b' },
    { name: 'c1', fabric: 'ib-c' },
    { name: 'c2', fabric: 'ib-c' },
  ];
  const model = [{ name: 'ds', gpus: 8, nodes: 2 }];
  // best fit: ib-b and ib-c have 2 free whole nodes, ib-a 3; then name.
  assert.equal(nodesOf(starts(planFleet(makeFleet({ nodes: base, models: model }), emptyState()))[0]!), ['b1', 'b2']);
  // a holding fabric (ib-c holds via a busy node) beats best fit... but not more chosen holders.
  const withHolders = base.map((n) => (n.name === 'a2' || n.name === 'a3' ? { ...n, holds: ['org/ds'] } : n.name === 'c1' ? { ...n, holds: ['org/ds'] } : n));
  const plan = planFleet(makeFleet({ nodes: withHolders, models: model }), emptyState());
  const s = starts(plan)[0]!;
  assert.equal(nodesOf(s), ['a2', 'a3']);
  assert.is(s.weights, 'node');
  const fabricOnly = [...base, { name: 'c3', fabric: 'ib-c', gpus: 2, holds: ['org/ds'] }];
  // c3 is too small to be chosen but makes ib-c a holding fabric.
  const t = starts(planFleet(makeFleet({ nodes: fabricOnly, models: model }), emptyState()))[0]!;
  assert.equal([nodesOf(t), t.weights], [['c1', 'c2'], 'fabric']);
});

test('port for a multi-node replica: one port on all its nodes, the lowest free on every one of them', () => {
  const cap = (ports: number[]) => ({ ports: new Set(ports) }) as unknown as NodeCapacity;
  assert.is(lowestCommonPort([cap([8000, 8002]), cap([8001])], 8000), 8003);
  assert.is(lowestCommonPort([cap([]), cap([8001])], 8000), 8000);
  // A whole node's ports are those freed by this plan's stops: 8000 is reused on both nodes.
  const fleet = makeFleet({
    nodes: [{ name: 'a1' }, { name: 'a2' }, { name: 'a3' }],
    replicas: [oneRank('x-0', 'a1', [0], { port: 8000 })],
    models: [{ name: 'ds', gpus: 8, nodes: 2 }],
  });
  const s = starts(planFleet(fleet, emptyState()))[0]!;
  assert.equal([nodesOf(s), s.port], [['a1', 'a2'], 8000]);
});

test('ports are per node: the lowest port from basePort not taken on that node', () => {
  const fleet = makeFleet({
    nodes: [{ name: 'a1' }],
    replicas: [oneRank('y-0', 'a1', [0], { port: 8000 })],
    models: [{ name: 'y' }, { name: 'm', replicas: 2 }],
  });
  assert.equal(
    starts(planFleet(fleet, emptyState())).map((a) => a.port),
    [8001, 8002],
  );
});

test('the multi-node reason says when free whole nodes were too small to count', () => {
  const fleet = makeFleet({
    nodes: [
      { name: 'a1', gpus: 4 },
      { name: 'a2', gpus: 4 },
      { name: 'b1', fabric: 'ib-b' },
    ],
    models: [{ name: 'ds', gpus: 8, nodes: 2, gpuClass: 'H100' }],
  });
  assert.equal(planFleet(fleet, emptyState()).unplaceable, [
    {
      model: 'ds',
      missing: 1,
      reason: 'needs 2 whole H100 nodes in one fabric; free whole H100 nodes: ib-a 0, ib-b 1 (only nodes with at least 8 GPUs count)',
    },
  ]);
});

test('the reason counts what is left after higher-ranked models took their share', () => {
  const fleet = makeFleet({
    nodes: [{ name: 'a1' }, { name: 'a2' }, { name: 'a3' }],
    models: [
      { name: 'first', gpus: 8, nodes: 2, priority: 1 },
      { name: 'second', gpus: 8, nodes: 2, replicas: 2 },
    ],
  });
  const plan = planFleet(fleet, emptyState());
  assert.equal(
    starts(plan).map((s) => s.replica),
    ['first-0'],
  );
  assert.equal(plan.unplaceable, [{ model: 'second', missing: 2, reason: 'needs 2 whole nodes in one fabric; free whole nodes: ib-a 1' }]);
});

test.run();
