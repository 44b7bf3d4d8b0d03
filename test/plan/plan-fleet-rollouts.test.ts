// planFleet's wiring of rollouts (docs/safety.md#rollouts): a model rolling out
// decides its own starts and stops, its canaries that do not fit are
// unplaceable with the exact count, and the plan lists rollouts by model name.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { planFleet } from '../../src/plan/plan-fleet.js';
import { replicaSpec } from '../../src/plan/spec.js';
import type { Fleet } from '../../src/types/fleet.js';
import type { RolloutRecord } from '../../src/types/plan.js';
import { emptyState, type State } from '../../src/types/state.js';
import { ENGINE, makeFleet, oneRank, startOf } from '../fixtures/index.js';

const rollout = { canary: 1, holdMs: 600_000, maxErrorRate: 0.05 };
const specOf = (fleet: Fleet, name: string) =>
  replicaSpec(
    fleet.config.models.find((m) => m.name === name)!,
    ENGINE,
  );
const withRollouts = (rollouts: Record<string, RolloutRecord>): State => ({ ...emptyState(), lifecycle: { draining: {}, rollouts } });

test('a model rolling out is not cut back by the surplus rule: two new-spec replicas beside one old, one wanted, nothing stops', () => {
  const fleet = makeFleet({
    nodes: [{ name: 'a1' }],
    replicas: [oneRank('m-0', 'a1', [0], { spec: 'oldspec1' }), oneRank('m-1', 'a1', [1]), oneRank('m-2', 'a1', [2])],
    models: [{ name: 'm', replicas: 1, rollout }],
  });
  const plan = planFleet(fleet, emptyState());
  assert.equal(plan.actions, []);
  assert.equal(plan.unplaceable, []);
  assert.equal(
    plan.rollouts!.map((r) => [r.model, r.stage]),
    [['m', 'hold']],
  );
});

test('a rolling model stops one old replica at a time, a stop that waits for nothing', () => {
  const fleet = makeFleet({
    nodes: [{ name: 'a1' }],
    replicas: [oneRank('m-0', 'a1', [0], { spec: 'oldspec1' }), oneRank('m-1', 'a1', [1], { spec: 'oldspec1' }), oneRank('m-2', 'a1', [2])],
    models: [{ name: 'm', replicas: 2, rollout }],
  });
  const S = specOf(fleet, 'm');
  const plan = planFleet(fleet, withRollouts({ m: { spec: S, stage: 'rolling' } }));
  assert.equal(plan.actions, [
    {
      op: 'stop',
      replica: 'm-1',
      model: 'm',
      placement: [{ node: 'a1', gpus: [1] }],
      reason: `replaced by spec ${S} (rollout)`,
      waitFor: [],
      phase: 'stop',
    },
  ]);
  assert.equal(plan.unplaceable, []);
});

test('canaries that all fit start with the canary reason, and nothing is unplaceable', () => {
  const fleet = makeFleet({
    nodes: [{ name: 'a1' }, { name: 'a2' }],
    replicas: [oneRank('m-0', 'a1', [0, 1, 2, 3, 4, 5, 6, 7], { spec: 'oldspec1' })],
    models: [{ name: 'm', gpus: 8, replicas: 1, rollout }],
  });
  const S = specOf(fleet, 'm');
  const plan = planFleet(fleet, emptyState());
  assert.equal(plan.actions, [startOf('m-1', [{ node: 'a2', gpus: [0, 1, 2, 3, 4, 5, 6, 7] }], `canary 1 of 1 for spec ${S}`)]);
  assert.equal(plan.unplaceable, []);
});

test('canaries short of room: those that fit start, the rest are unplaceable with how many are missing', () => {
  // Two canaries of 8 GPUs, one free node: one starts, one is missing.
  const fleet = makeFleet({
    nodes: [{ name: 'a1' }, { name: 'a2' }, { name: 'a3' }],
    replicas: [oneRank('m-0', 'a1', [0, 1, 2, 3, 4, 5, 6, 7], { spec: 'oldspec1' }), oneRank('m-1', 'a2', [0, 1, 2, 3, 4, 5, 6, 7], { spec: 'oldspec1' })],
    models: [{ name: 'm', gpus: 8, replicas: 2, rollout: { ...rollout, canary: 2 } }],
  });
  const S = specOf(fleet, 'm');
  const plan = planFleet(fleet, emptyState());
  assert.equal(plan.actions, [startOf('m-2', [{ node: 'a3', gpus: [0, 1, 2, 3, 4, 5, 6, 7] }], `canary 2 of 2 for spec ${S}`)]);
  assert.equal(plan.unplaceable, [{ model: 'm', missing: 1, reason: 'needs 8 free GPUs on one node; most free on one node: ib-a 0' }]);
});

test('the plan lists rollouts by model name, not in placement order', () => {
  // b places first (higher priority); the list still reads a, b.
  const fleet = makeFleet({
    nodes: [{ name: 'a1' }],
    replicas: [oneRank('a-0', 'a1', [0], { spec: 'oldspec1' }), oneRank('b-0', 'a1', [1], { spec: 'oldspec1' })],
    models: [
      { name: 'a', replicas: 1, rollout },
      { name: 'b', replicas: 1, priority: 1, rollout },
    ],
  });
  const plan = planFleet(fleet, emptyState());
  assert.equal(
    plan.rollouts!.map((r) => [r.model, r.stage]),
    [
      ['a', 'canary'],
      ['b', 'canary'],
    ],
  );
  assert.equal(
    plan.actions.map((a) => a.replica),
    ['b-1', 'a-1'],
  );
});

test.run();
