import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { planFleet } from '../../src/plan/plan-fleet.js';
import { emptyState } from '../../src/types/state.js';
import { makeFleet, type ReplicaSpecIn } from '../fixtures/index.js';

const safety = { maxStopFraction: 0.5, minReachableFraction: 0.5 };
const running = (ids: string[], model: string): ReplicaSpecIn[] => ids.map((id, i) => ({ id, model, ranks: [{ node: 'a1', gpus: [i] }] }));

test('fewer nodes answered than minReachableFraction: blocked with the numbers, actions still listed', () => {
  const nodes = [
    ...['a1', 'a2', 'a3'].map((name) => ({ name })),
    ...['b1', 'b2', 'b3', 'b4', 'b5'].map((name) => ({ name, condition: 'unreachable' as const })),
  ];
  const plan = planFleet(makeFleet({ nodes, models: [{ name: 'm' }], safety }), emptyState());
  assert.is(plan.blocked, 'only 3 of 8 nodes answered (38%); safety.minReachableFraction is 50%: observing only');
  assert.is(plan.actions.length, 1);
  assert.is(plan.changes, true);
  const half = nodes.map((n, i) => (i === 3 ? { name: n.name } : n));
  assert.is(planFleet(makeFleet({ nodes: half, models: [{ name: 'm' }], safety }), emptyState()).blocked, null);
});

test('stopping more than maxStopFraction of running and starting replicas is blocked', () => {
  const fleet = makeFleet({
    nodes: [{ name: 'a1' }],
    replicas: running(['m-0', 'm-1', 'm-2', 'm-3'], 'm'),
    models: [{ name: 'm', replicas: 1 }],
    safety,
  });
  const plan = planFleet(fleet, emptyState());
  assert.is(plan.actions.length, 3);
  assert.is(plan.blocked, 'would stop 3 of 4 running and starting replicas (75%) without a replacement; safety.maxStopFraction is 50%');
  const exactlyHalf = makeFleet({
    nodes: [{ name: 'a1' }],
    replicas: running(['m-0', 'm-1', 'm-2', 'm-3'], 'm'),
    models: [{ name: 'm', replicas: 2 }],
    safety,
  });
  assert.is(planFleet(exactlyHalf, emptyState()).blocked, null);
});

test('stops waiting for a replacement do not count toward maxStopFraction', () => {
  const fleet = makeFleet({
    nodes: [{ name: 'a1' }],
    replicas: running(['m-0', 'm-1'], 'm').map((r) => ({ ...r, spec: 'oldspec' })),
    models: [{ name: 'm', replicas: 2 }],
    safety,
  });
  const plan = planFleet(fleet, emptyState());
  assert.is(plan.actions.filter((a) => a.op === 'stop').length, 2);
  assert.is(plan.blocked, null);
});

test('with no replica running or starting nothing is blocked, and failed replicas do not count', () => {
  const fleet = makeFleet({
    nodes: [{ name: 'a1' }],
    replicas: running(['m-0', 'm-1'], 'm').map((r) => ({ ...r, state: 'failed' as const })),
    models: [],
    safety,
  });
  const plan = planFleet(fleet, emptyState());
  assert.is(plan.actions.length, 2);
  assert.is(plan.blocked, null);
});

test.run();
