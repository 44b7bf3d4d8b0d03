import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { planFleet } from '../../src/plan/plan-fleet.js';
import { emptyState } from '../../src/types/state.js';
import { brief, makeFleet, oneRank } from '../fixtures/index.js';

test('spec changed without enough kept replicas: surge, one stop per new replica, waiting for it', () => {
  const fleet = makeFleet({
    nodes: [
      { name: 'a1', gpus: 4 },
      { name: 'a2', gpus: 4 },
      { name: 'a3', gpus: 4 },
    ],
    replicas: [oneRank('m-0', 'a1', [0, 1, 2, 3], { spec: 'oldspec' }), oneRank('m-1', 'a2', [0, 1, 2, 3], { spec: 'oldspec' })],
    models: [{ name: 'm', gpus: 4, replicas: 2 }],
  });
  const plan = planFleet(fleet, emptyState());
  // The old replicas' GPUs stay taken: only a3 has room, so one new one now and one old one goes.
  assert.equal(plan.actions.map(brief), ['start m-2 a3', 'stop m-0 (spec changed) after [m-2]']);
  assert.equal(plan.unplaceable, [{ model: 'm', missing: 1, reason: 'needs 4 free GPUs on one node; most free on one node: ib-a 0' }]);
  assert.is((plan.actions[0] as { reason: string }).reason, '2 of 2 replicas missing');
});

test('spec changed with enough kept replicas: every not-kept one stops, waiting for kept ones still starting', () => {
  const fleet = makeFleet({
    nodes: [{ name: 'a1' }],
    replicas: [oneRank('m-0', 'a1', [0], { spec: 'oldspec' }), oneRank('m-1', 'a1', [1], { state: 'starting' }), oneRank('m-2', 'a1', [2])],
    models: [{ name: 'm', replicas: 2 }],
  });
  assert.equal(planFleet(fleet, emptyState()).actions.map(brief), ['stop m-0 (spec changed) after [m-1]']);
});

test('a cordoned node and an unhealthy GPU are replaced with surge, with their own reasons', () => {
  const fleet = makeFleet({
    nodes: [{ name: 'a1', cordon: true }, { name: 'a2', unhealthy: [1] }, { name: 'a3' }],
    replicas: [oneRank('c-0', 'a1', [0]), oneRank('u-0', 'a2', [0, 1])],
    models: [{ name: 'c' }, { name: 'u', gpus: 2 }],
  });
  const plan = planFleet(fleet, emptyState());
  assert.equal(plan.actions.map(brief), ['start u-1 a3', 'start c-1 a2', 'stop c-0 (node cordoned) after [c-1]', 'stop u-0 (GPU unhealthy) after [u-1]']);
  // Spread sends u-1 away from u-0's node; c-1 fits best on a2, avoiding the
  // unhealthy GPU and the GPUs u-0 still holds while it is replaced.
  assert.equal(plan.actions[1]!.placement, [{ node: 'a2', gpus: [2] }]);
});

test('the wait lists the new replicas and the kept ones still starting', () => {
  const fleet = makeFleet({
    nodes: [{ name: 'a1' }],
    replicas: [oneRank('m-0', 'a1', [0], { spec: 'oldspec' }), oneRank('m-1', 'a1', [1], { state: 'starting' })],
    models: [{ name: 'm', replicas: 2 }],
  });
  assert.equal(planFleet(fleet, emptyState()).actions.map(brief), ['start m-2 a1', 'stop m-0 (spec changed) after [m-1,m-2]']);
});

test('a changed gpuClass replaces the replica on the right class', () => {
  const fleet = makeFleet({
    nodes: [
      { name: 'a1', cls: 'A100' },
      { name: 'h1', cls: 'H100' },
    ],
    replicas: [oneRank('m-0', 'a1', [0])],
    models: [{ name: 'm', gpuClass: 'H100' }],
  });
  assert.equal(planFleet(fleet, emptyState()).actions.map(brief), ['start m-1 h1', 'stop m-0 (gpuClass changed) after [m-1]']);
});

test.run();
