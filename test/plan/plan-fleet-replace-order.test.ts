// planFleet's surge replacement order (docs/placement.md step 4): replicas of a
// model go by their number n of `<model>-<n>`, not by the text of their id, both
// for which not-kept replica a new one releases and for what a stop waits for.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { planFleet } from '../../src/plan/plan-fleet.js';
import { emptyState } from '../../src/types/state.js';
import { makeFleet, oneRank, startOf } from '../fixtures/index.js';

test('with room for one replacement of two, the lowest-numbered not-kept replica (m-2, not m-10) is the one released', () => {
  const fleet = makeFleet({
    nodes: [{ name: 'a1' }, { name: 'a2', gpus: 4 }],
    replicas: [oneRank('m-2', 'a1', [0, 1, 2, 3], { spec: 'oldspec1' }), oneRank('m-10', 'a1', [4, 5, 6, 7], { spec: 'oldspec1' })],
    models: [{ name: 'm', gpus: 4, replicas: 2 }],
  });
  const plan = planFleet(fleet, emptyState());
  assert.equal(plan.actions, [
    startOf('m-0', [{ node: 'a2', gpus: [0, 1, 2, 3] }], '2 of 2 replicas missing'),
    { op: 'stop', replica: 'm-2', model: 'm', placement: [{ node: 'a1', gpus: [0, 1, 2, 3] }], reason: 'spec changed', waitFor: ['m-0'], phase: 'stop' },
  ]);
  assert.equal(plan.unplaceable, [{ model: 'm', missing: 1, reason: 'needs 4 free GPUs on one node; most free on one node: ib-a 0' }]);
});

test('enough kept replicas: a not-kept one waits for the starting kept ones in replica-number order (m-2 before m-10)', () => {
  const fleet = makeFleet({
    nodes: [{ name: 'a1' }],
    replicas: [
      oneRank('m-0', 'a1', [0], { spec: 'oldspec1' }),
      oneRank('m-2', 'a1', [2], { state: 'starting' }),
      oneRank('m-10', 'a1', [3], { state: 'starting' }),
    ],
    models: [{ name: 'm', replicas: 2 }],
  });
  const plan = planFleet(fleet, emptyState());
  assert.equal(plan.actions, [
    { op: 'stop', replica: 'm-0', model: 'm', placement: [{ node: 'a1', gpus: [0] }], reason: 'spec changed', waitFor: ['m-2', 'm-10'], phase: 'stop' },
  ]);
  assert.equal(plan.unplaceable, []);
});

test.run();
