// Surplus (docs/placement.md step 2) when some replicas sit on unreachable nodes:
// only a replica a reachable node can be told to stop is ever chosen.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { planFleet } from '../../src/plan/plan-fleet.js';
import { emptyState } from '../../src/types/state.js';
import { makeFleet } from '../fixtures/index.js';

test('a surplus replica on an unreachable node is never the one stopped: the reachable one goes, the unreachable one counts', () => {
  // m-1 is the highest n, so the surplus order alone would pick it; but a stop
  // for an unreachable node cannot be delivered and the surplus would keep running.
  const fleet = makeFleet({
    nodes: [{ name: 'a1' }, { name: 'a2', condition: 'unreachable' }],
    replicas: [
      { id: 'm-0', model: 'm', ranks: [{ node: 'a1', gpus: [0] }] },
      { id: 'm-1', model: 'm', ranks: [{ node: 'a2', gpus: [3] }] },
    ],
    models: [{ name: 'm', replicas: 1 }],
  });
  const plan = planFleet(fleet, emptyState());
  assert.equal(plan, {
    version: 1,
    changes: true,
    blocked: null,
    actions: [{ op: 'stop', replica: 'm-0', model: 'm', placement: [{ node: 'a1', gpus: [0] }], reason: 'surplus (2 of 1)', waitFor: [], phase: 'stop' }],
    unplaceable: [],
  });
});

test('when only replicas on unreachable nodes are surplus, nothing is stopped', () => {
  const fleet = makeFleet({
    nodes: [
      { name: 'a1', condition: 'unreachable' },
      { name: 'a2', condition: 'unreachable' },
    ],
    replicas: [
      { id: 'm-0', model: 'm', ranks: [{ node: 'a1', gpus: [0] }], idleSeconds: 90_000 },
      { id: 'm-1', model: 'm', ranks: [{ node: 'a2', gpus: [0] }], idleSeconds: 90_000 },
    ],
    models: [{ name: 'm', replicas: 1 }],
  });
  assert.equal(planFleet(fleet, emptyState()).actions, []);
});

test.run();
