// One-node placement ranking (docs/placement.md step 3) where the candidate
// heap's comparisons matter: a recent start failure whichever node comes first,
// a mixed node offering two classes equally well, and a node offering several
// classes whose other entry went stale after a placement on it.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { planFleet } from '../../src/plan/plan-fleet.js';
import type { StartAction } from '../../src/types/plan.js';
import { emptyState, type State } from '../../src/types/state.js';
import { makeFleet, NOW } from '../fixtures/index.js';

const starts = (plan: ReturnType<typeof planFleet>) => plan.actions.filter((a): a is StartAction => a.op === 'start');

/** m failed to start on `node` a minute ago. */
const failedOn = (node: string): State => ({
  ...emptyState(),
  startFailures: [{ model: 'm', node, replica: 'm-0', at: new Date(Date.parse(NOW) - 60_000).toISOString(), error: 'x' }],
});

test('a node where the model failed to start in the last 30 minutes loses to a fresh node, even one without the weights, whichever name comes first', () => {
  // a1 is fresh and holds nothing; a2 failed a minute ago but holds the weights.
  const fleet = makeFleet({
    nodes: [
      { name: 'a1', fabric: 'ib-a' },
      { name: 'a2', fabric: 'ib-b', holds: ['org/m'] },
    ],
    models: [{ name: 'm', gpus: 8 }],
  });
  assert.equal(starts(planFleet(fleet, failedOn('a2'))), [
    {
      op: 'start',
      replica: 'm-0',
      model: 'm',
      port: 8000,
      placement: [{ node: 'a1', gpus: [0, 1, 2, 3, 4, 5, 6, 7] }],
      weights: 'none',
      reason: '1 of 1 replica missing',
    },
  ]);
  // The same with the names the other way round: the fresh node a2 wins.
  const swapped = makeFleet({
    nodes: [
      { name: 'a1', fabric: 'ib-a', holds: ['org/m'] },
      { name: 'a2', fabric: 'ib-b' },
    ],
    models: [{ name: 'm', gpus: 8 }],
  });
  assert.equal(
    starts(planFleet(swapped, failedOn('a1'))).map((s) => [s.placement, s.weights]),
    [[[{ node: 'a2', gpus: [0, 1, 2, 3, 4, 5, 6, 7] }], 'none']],
  );
});

test('a mixed node offering two classes equally well to a model without gpuClass takes the class first by name', () => {
  // Same node, same free count of each class: every rule ties down to the class, A100 before H100.
  const h100First = makeFleet({
    nodes: [{ name: 'a1', gpus: 4, classes: ['H100', 'H100', 'A100', 'A100'] }],
    models: [{ name: 'm', gpus: 2 }],
  });
  assert.equal(starts(planFleet(h100First, emptyState())), [
    {
      op: 'start',
      replica: 'm-0',
      model: 'm',
      port: 8000,
      placement: [{ node: 'a1', gpus: [2, 3] }],
      weights: 'none',
      reason: '1 of 1 replica missing',
    },
  ]);
  const a100First = makeFleet({
    nodes: [{ name: 'a1', gpus: 4, classes: ['A100', 'A100', 'H100', 'H100'] }],
    models: [{ name: 'm', gpus: 2 }],
  });
  assert.equal(
    starts(planFleet(a100First, emptyState())).map((s) => s.placement),
    [[{ node: 'a1', gpus: [0, 1] }]],
  );
});

test('spread holds across classes: after a replica lands on one class of a mixed node, the next goes to a node without one', () => {
  // a1 has one A100 and one H100, a2 eight H100. Best fit puts m-0 on a1's A100 (nothing left over);
  // a1's H100 would also leave nothing over, but a1 now runs m, so m-1 spreads to a2.
  const fleet = makeFleet({
    nodes: [{ name: 'a1', gpus: 2, classes: ['A100', 'H100'] }, { name: 'a2' }],
    models: [{ name: 'm', gpus: 1, replicas: 2 }],
  });
  assert.equal(starts(planFleet(fleet, emptyState())), [
    {
      op: 'start',
      replica: 'm-0',
      model: 'm',
      port: 8000,
      placement: [{ node: 'a1', gpus: [0] }],
      weights: 'none',
      reason: '2 of 2 replicas missing',
    },
    {
      op: 'start',
      replica: 'm-1',
      model: 'm',
      port: 8000,
      placement: [{ node: 'a2', gpus: [0] }],
      weights: 'none',
      reason: '2 of 2 replicas missing',
    },
  ]);
});

test.run();
