// When a rollout's hold begins again (docs/safety.md#rollouts): only a record of
// this canary stage with its start, its baseline and the same canaries goes on
// holding; anything else starts the hold afresh from the counters seen now.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { classify } from '../../src/plan/classify.js';
import { planRollout } from '../../src/plan/rollout.js';
import type { RolloutRecord } from '../../src/types/plan.js';
import { emptyState, type State } from '../../src/types/state.js';
import { at, lcConfig, model, planned, rep, router, snap, specOf, T0 } from './lifecycle-fixture.js';

const rollout = { canary: 1, holdMs: 600_000, maxErrorRate: 0.05 };
const c = lcConfig([model('m', { replicas: 4, rollout })]);
const S = specOf(c, 'm');
const reps = () => [...[0, 1, 2, 3].map((n) => rep(c, `m-${n}`, 'n1', [n], { spec: 'oldspec1' })), rep(c, 'm-9', 'n2', [0])];
const rt = router('rt-1', { served: { 'm-9': { requests: 40, errors: 1 } } });
const withRollout = (rec: RolloutRecord): State => ({ ...emptyState(), lifecycle: { draining: {}, rollouts: { m: rec } } });
const fresh = (now: string): RolloutRecord => ({
  spec: S,
  stage: 'canary',
  holdSince: now,
  canaries: ['m-9'],
  baseline: { 'rt-1': { startedAt: '2026-11-28T00:00:00Z', requests: 40, errors: 1 } },
});
const after = (state: State, seconds = 900) => {
  const r = planned(c, snap(c, reps(), [rt], at(seconds)), state).plan.rollouts![0]!;
  return [r.stage, r.next];
};

test('a running canary with nothing remembered begins its hold now, from the counters seen now', () => {
  assert.equal(after(emptyState(), 0), ['hold', fresh(T0)]);
});

test('a remembered hold with other canaries, no start or no baseline begins again now instead of being judged', () => {
  const base = {
    spec: S,
    stage: 'canary' as const,
    holdSince: T0,
    canaries: ['m-9'],
    baseline: { 'rt-1': { startedAt: '2026-11-28T00:00:00Z', requests: 0, errors: 0 } },
  };
  assert.equal(after(withRollout(base)), ['rolling', { spec: S, stage: 'rolling' }], 'the same hold, over: judged and promoted');
  assert.equal(after(withRollout({ ...base, canaries: ['m-8'] })), ['hold', fresh(at(900))]);
  assert.equal(after(withRollout({ ...base, canaries: undefined })), ['hold', fresh(at(900))]);
  assert.equal(after(withRollout({ ...base, holdSince: undefined })), ['hold', fresh(at(900))]);
  assert.equal(after(withRollout({ ...base, baseline: undefined })), ['hold', fresh(at(900))]);
});

test('the canaries of a hold are remembered in name order', () => {
  const c2 = lcConfig([model('m', { replicas: 4, rollout: { ...rollout, canary: 2 } })]);
  const all = [...[0, 1, 2, 3].map((n) => rep(c2, `m-${n}`, 'n1', [n], { spec: 'oldspec1' })), rep(c2, 'm-9', 'n1', [4]), rep(c2, 'm-10', 'n2', [0])];
  const { fleet, plan } = planned(c2, snap(c2, all, [router('rt-1')]));
  assert.equal(plan.rollouts![0]!.next.canaries, ['m-10', 'm-9']);
  // Whatever order the caller lists them in.
  const group = classify(fleet).byModel.get('m')!;
  const reversed = planRollout({ ...group, kept: [...group.kept].reverse() }, fleet, emptyState())!;
  assert.equal(reversed.plan.next.canaries, ['m-10', 'm-9']);
});

test.run();
