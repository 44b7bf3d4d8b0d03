// What docs/safety.md's two fractions count: a lost replica is on neither side
// of maxStopFraction, a starting one is on both, a failed one on neither; and
// the sentence shows the configured fraction as written (87.5%), the measured
// one rounded to a whole percent.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { planFleet } from '../../src/plan/plan-fleet.js';
import { blockedReason } from '../../src/plan/safety.js';
import type { StopAction } from '../../src/types/plan.js';
import { emptyState } from '../../src/types/state.js';
import { makeFleet, type ReplicaSpecIn } from '../fixtures/index.js';

const r = (id: string, node: string, gpu: number, extra: Partial<ReplicaSpecIn> = {}): ReplicaSpecIn => ({
  id,
  model: 'm',
  ranks: [{ node, gpus: [gpu] }],
  ...extra,
});

test('lost replicas count on neither side of maxStopFraction: 1 stop of 2 serving is 50%, not 1 of 4', () => {
  const fleet = makeFleet({
    nodes: [{ name: 'a1' }, { name: 'a2', condition: 'lost' }],
    replicas: [r('m-0', 'a1', 0), r('m-1', 'a1', 1), r('m-2', 'a2', 0), r('m-3', 'a2', 1)],
    models: [{ name: 'm', replicas: 1 }],
    safety: { maxStopFraction: 0.4, minReachableFraction: 0 },
  });
  const plan = planFleet(fleet, emptyState());
  assert.equal(
    plan.actions.map((a) => `${a.op} ${a.replica}`),
    ['stop m-1'],
  );
  assert.is(plan.blocked, 'would stop 1 of 2 running and starting replicas (50%) without a replacement; safety.maxStopFraction is 40%');
});

test('a starting replica serves for safety (counted, and its stop counted); a failed one is neither', () => {
  const fleet = makeFleet({
    nodes: [{ name: 'a1' }],
    replicas: [r('m-0', 'a1', 0), r('m-1', 'a1', 1, { state: 'starting' }), r('m-2', 'a1', 2, { state: 'failed' })],
    models: [{ name: 'm', replicas: 1 }],
    safety: { maxStopFraction: 0.4, minReachableFraction: 0 },
  });
  const plan = planFleet(fleet, emptyState());
  assert.equal(
    plan.actions.map((a) => `${a.op} ${a.replica}`),
    ['stop m-1', 'stop m-2'],
  );
  assert.is(plan.blocked, 'would stop 1 of 2 running and starting replicas (50%) without a replacement; safety.maxStopFraction is 40%');
});

test('the configured fraction is shown to a tenth of a percent, the measured one to a whole percent', () => {
  const nodes = ['a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7'].map((name) => ({ name }));
  const fleet = makeFleet({
    nodes: [...nodes, { name: 'a8', condition: 'unreachable' as const }],
    models: [{ name: 'm' }],
    safety: { maxStopFraction: 1, minReachableFraction: 0.8751 },
  });
  assert.is(planFleet(fleet, emptyState()).blocked, 'only 7 of 8 nodes answered (88%); safety.minReachableFraction is 87.5%: observing only');
});

test('a fleet of no nodes is never blocked for answering too few', () => {
  const fleet = makeFleet({ nodes: [], models: [{ name: 'm' }], safety: { maxStopFraction: 0, minReachableFraction: 1 } });
  const plan = planFleet(fleet, emptyState());
  assert.is(plan.blocked, null);
  assert.equal(
    plan.unplaceable.map((u) => u.model),
    ['m'],
  );
});

test('a stop naming a replica the fleet does not know counts for nothing (never an error)', () => {
  const fleet = makeFleet({
    nodes: [{ name: 'a1' }],
    replicas: [r('m-0', 'a1', 0)],
    models: [{ name: 'm' }],
    safety: { maxStopFraction: 0, minReachableFraction: 0 },
  });
  const ghost = { op: 'stop' as const, replica: 'ghost-0', model: 'ghost', placement: [{ node: 'a1', gpus: [3] }], reason: 'x', waitFor: [] };
  assert.is(blockedReason(fleet, [ghost]), null);
  assert.is(
    blockedReason(fleet, [{ ...ghost, replica: 'm-0' }]),
    'would stop 1 of 1 running and starting replicas (100%) without a replacement; safety.maxStopFraction is 0%',
  );
});

/** Stops without a replacement of `ids`, as the plan would write them. */
const stopsOf = (...ids: string[]): StopAction[] =>
  ids.map((id) => ({ op: 'stop', replica: id, model: 'm', placement: [{ node: 'a1', gpus: [Number(id.slice(2))] }], reason: 'surplus', waitFor: [] }));

function fourRunning(maxStopFraction: number, extra: Partial<Record<string, Partial<ReplicaSpecIn>>> = {}) {
  return makeFleet({
    nodes: [{ name: 'a1' }],
    replicas: ['m-0', 'm-1', 'm-2', 'm-3'].map((id, i) => r(id, 'a1', i, extra[id] ?? {})),
    models: [{ name: 'm', replicas: 4 }],
    safety: { maxStopFraction, minReachableFraction: 0 },
  });
}

test('exactly maxStopFraction is not over it: 2 stops of 4 at 50% pass, 3 do not', () => {
  assert.is(blockedReason(fourRunning(0.5), stopsOf('m-0', 'm-1')), null);
  assert.is(
    blockedReason(fourRunning(0.5), stopsOf('m-0', 'm-1', 'm-2')),
    'would stop 3 of 4 running and starting replicas (75%) without a replacement; safety.maxStopFraction is 50%',
  );
});

test('a draining replica counts on neither side: its stop was counted when its drain began', () => {
  const fleet = fourRunning(0.5);
  fleet.replicaById.get('m-3')!.draining = { since: fleet.now, reason: 'spec changed', outOfTablesAt: null };
  assert.is(
    blockedReason(fleet, stopsOf('m-0', 'm-1', 'm-3')),
    'would stop 2 of 3 running and starting replicas (67%) without a replacement; safety.maxStopFraction is 50%',
  );
});

test('the stop of a replica idle for idle.after takes nothing from service: outside the fraction', () => {
  // idle.after is 24 h in the fixture cluster.
  const fleet = fourRunning(0.3, { 'm-0': { idleSeconds: 90_000 }, 'm-1': { idleSeconds: 60 } });
  assert.is(blockedReason(fleet, stopsOf('m-0', 'm-2')), null, '1 of 4 counted: 25%');
  assert.is(
    blockedReason(fleet, stopsOf('m-1', 'm-2')),
    'would stop 2 of 4 running and starting replicas (50%) without a replacement; safety.maxStopFraction is 30%',
  );
});

test.run();
