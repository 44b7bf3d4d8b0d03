// Rollouts (docs/safety.md#rollouts): canaries beside the old spec, a hold
// judged by the routers' served counters, promotion one replica at a time, or
// a rollback whose spec is not tried again until models.yaml changes it.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MIN_HOLD_REQUESTS } from '../../src/plan/rollout.js';
import type { RolloutRecord } from '../../src/types/plan.js';
import type { ReplicaReport } from '../../src/types/snapshot.js';
import { emptyState, type State } from '../../src/types/state.js';
import { at, drainingState, lcConfig, lines, model, planned, rep, router, snap, specOf, T0, type Rep } from './lifecycle-fixture.js';

const rollout = { canary: 1, holdMs: 600_000, maxErrorRate: 0.05 };
const c = lcConfig([model('m', { replicas: 4, rollout })]);
const S = specOf(c, 'm');
const old = (n: number, extra: Partial<ReplicaReport> = {}): Rep => rep(c, `m-${n}`, 'n1', [n], { spec: 'oldspec1', ...extra });
const olds = () => [0, 1, 2, 3].map((n) => old(n));
const canary = (extra: Partial<ReplicaReport> = {}): Rep => rep(c, 'm-4', 'n2', [0], extra);
const withRollout = (rec: RolloutRecord, base: State = emptyState()): State => ({
  ...base,
  lifecycle: { draining: base.lifecycle?.draining ?? {}, rollouts: { m: rec } },
});
const served = (requests: number, errors: number) => router('rt-1', { served: { 'm-4': { requests, errors }, 'm-0': { requests: 900, errors: 0 } } });
const holding = (extra: Partial<RolloutRecord> = {}): RolloutRecord => ({
  spec: S,
  stage: 'canary',
  holdSince: T0,
  canaries: ['m-4'],
  baseline: { 'rt-1': { startedAt: '2026-11-28T00:00:00Z', requests: 10, errors: 0 } },
  ...extra,
});

test('a changed spec with rollout starts its canary beside the old replicas, stopping none', () => {
  const { plan } = planned(c, snap(c, olds(), [router('rt-1')]));
  assert.equal(lines(plan), ['start m-4 n2[0]']);
  assert.is(plan.actions[0]!.reason, `canary 1 of 4 for spec ${S}`);
  assert.equal(
    plan.rollouts!.map((r) => [r.stage, r.text, r.next]),
    [['canary', `canary 1 of 4 for spec ${S}: starting`, { spec: S, stage: 'canary' }]],
  );
});

test('while the canary starts nothing else happens; once it runs (and is routed) the hold begins, from the counters seen then', () => {
  assert.equal(lines(planned(c, snap(c, [...olds(), canary({ state: 'starting' })], [router('rt-1')])).plan), []);
  const { plan } = planned(c, snap(c, [...olds(), canary()], [served(10, 0)]), withRollout({ spec: S, stage: 'canary' }));
  assert.equal(plan.actions, []);
  assert.equal(plan.rollouts![0]!.stage, 'hold');
  assert.equal(plan.rollouts![0]!.next, holding());
});

test('during the hold nothing changes; past it, an error rate within maxErrorRate promotes, and the rest roll one at a time', () => {
  const state = withRollout(holding());
  const during = planned(c, snap(c, [...olds(), canary()], [served(40, 9)], at(300)), state).plan;
  assert.equal([during.actions, during.rollouts![0]!.stage, during.rollouts![0]!.next], [[], 'hold', holding()]);
  // 30 more requests, 1 more error: 3.3%.
  const past = planned(c, snap(c, [...olds(), canary()], [served(40, 1)], at(600)), state).plan;
  assert.equal(past.rollouts![0]!.stage, 'rolling');
  assert.equal(past.rollouts![0]!.next, { spec: S, stage: 'rolling' });
  // Five replicas serve where four are wanted: one old one drains, nothing starts yet.
  assert.equal(lines(past), ['drain m-3 (replaced by spec ' + S + ' (rollout))']);
});

test('an error rate above maxErrorRate rolls back: the canary drains, the old spec keeps serving, the spec is remembered as failed', () => {
  const { plan } = planned(c, snap(c, [...olds(), canary()], [served(30, 4)], at(600)), withRollout(holding()));
  assert.equal(lines(plan), [`drain m-4 (rollout failed for spec ${S})`]);
  const r = plan.rollouts![0]!;
  assert.equal([r.stage, r.next.stage, r.next.spec, r.next.reason], ['failed', 'failed', S, 'error rate 20% (4 of 20 requests) above maxErrorRate 5%']);
  assert.match(r.text, /^rollout failed for spec \w+: error rate 20% \(4 of 20 requests\) above maxErrorRate 5%; the old spec keeps serving$/);
});

test(`fewer than ${MIN_HOLD_REQUESTS} requests over the hold are no evidence: the hold goes on`, () => {
  const { plan } = planned(c, snap(c, [...olds(), canary()], [served(25, 0)], at(3600)), withRollout(holding()));
  assert.equal(plan.actions, []);
  assert.equal(plan.rollouts![0]!.stage, 'hold');
  assert.match(plan.rollouts![0]!.text, /hold over, waiting for 20 requests to judge by/);
});

test('a router restarted during the hold counts from its restart', () => {
  const restarted = router('rt-1', { startedAt: '2026-11-29T08:05:00Z', served: { 'm-4': { requests: 20, errors: 0 } } });
  const { plan } = planned(
    c,
    snap(c, [...olds(), canary()], [restarted], at(600)),
    withRollout(holding({ baseline: { 'rt-1': { startedAt: '2026-11-28T00:00:00Z', requests: 500, errors: 0 } } })),
  );
  assert.equal(plan.rollouts![0]!.stage, 'rolling');
});

test('a canary that fails, or fails its answer check, rolls back at once', () => {
  const failed = planned(
    c,
    snap(c, [...olds(), canary({ state: 'failed', error: 'its process (pid 7) exited' })], [router('rt-1')]),
    withRollout({ spec: S, stage: 'canary' }),
  ).plan;
  assert.equal(lines(failed), ['stop m-4 (failed)']);
  assert.equal(failed.rollouts![0]!.next.reason, 'canary m-4 failed: its process (pid 7) exited');
  const wrong = canary({ check: { ok: false, at: T0, error: 'expected /ready/i, got "no"' } });
  const checked = planned(c, snap(c, [...olds(), wrong], [served(15, 0)], at(60)), withRollout(holding())).plan;
  assert.equal(checked.rollouts![0]!.next.reason, 'canary m-4 fails its answer check: expected /ready/i, got "no"');
  assert.equal(lines(checked), [`drain m-4 (rollout failed for spec ${S})`]);
});

test('a failed spec is not tried again: nothing of it starts, the old replicas count, until models.yaml changes the spec', () => {
  const failed = withRollout({ spec: S, stage: 'failed', reason: 'error rate 20% (4 of 20 requests) above maxErrorRate 5%', failedAt: T0 });
  const three = [0, 1, 2].map((n) => old(n));
  const { plan } = planned(c, snap(c, three, [router('rt-1')], at(3600)), failed);
  assert.equal(plan.actions, [], 'short by one, and still nothing of the failed spec');
  assert.equal(plan.rollouts![0]!.stage, 'failed');
  assert.equal(plan.rollouts![0]!.next, failed.lifecycle!.rollouts.m);
  // A new spec: a new rollout, from its canary.
  const c2 = lcConfig([model('m', { replicas: 4, rollout, args: ['--max-model-len', '4096'] })]);
  const again = planned(
    c2,
    snap(
      c2,
      three.map((r) => ({ ...r, report: { ...r.report, spec: 'oldspec1' } })),
      [router('rt-1')],
      at(3600),
    ),
    failed,
  ).plan;
  assert.equal(again.rollouts![0]!.stage, 'canary');
  assert.equal(
    again.actions.map((a) => a.op),
    ['start'],
  );
});

test('rolling: one replica in transition at a time — a new one starting or an old one draining holds the next step', () => {
  const rolling = withRollout({ spec: S, stage: 'rolling' });
  const fresh = (n: number, node: string, gpu: number, extra: Partial<ReplicaReport> = {}) => rep(c, `m-${n}`, node, [gpu], extra);
  // Four wanted: 1 new + 3 old serve; no transition under way: surge one.
  const surge = planned(c, snap(c, [old(0), old(1), old(2), fresh(4, 'n2', 0)], [router('rt-1')]), rolling).plan;
  assert.equal(lines(surge), ['start m-3 n2[1]']);
  assert.is(surge.actions[0]!.reason, `rollout to spec ${S}: 2 of 4`);
  // The surged one still starting: wait.
  assert.equal(
    lines(planned(c, snap(c, [old(0), old(1), old(2), fresh(4, 'n2', 0), fresh(5, 'n2', 1, { state: 'starting' })], [router('rt-1')]), rolling).plan),
    [],
  );
  // It runs: one old one drains.
  assert.equal(lines(planned(c, snap(c, [old(0), old(1), old(2), fresh(4, 'n2', 0), fresh(5, 'n2', 1)], [router('rt-1')]), rolling).plan), [
    `drain m-2 (replaced by spec ${S} (rollout))`,
  ]);
  // While it drains: wait.
  const draining = drainingState({ 'm-2': { since: T0 } }, rolling);
  assert.equal(
    lines(
      planned(c, snap(c, [old(0), old(1), old(2), fresh(4, 'n2', 0), fresh(5, 'n2', 1)], [router('rt-1', { inflight: { 'm-2': 1 } })], at(60)), draining).plan,
    ),
    [],
  );
  // Drained: its stop and the next surge go in the same tick.
  assert.equal(lines(planned(c, snap(c, [old(0), old(1), old(2), fresh(4, 'n2', 0), fresh(5, 'n2', 1)], [router('rt-1')], at(60)), draining).plan), [
    'stop m-2 (surplus (2 of 1); drained)',
    'start m-3 n1[2]',
  ]);
});

test('once no old replica is left the rollout is over: the plan names none', () => {
  const fresh = [4, 5, 6, 7].map((n, i) => rep(c, `m-${n}`, 'n2', [i]));
  const { plan } = planned(c, snap(c, fresh, [router('rt-1')]), withRollout({ spec: S, stage: 'rolling' }));
  assert.equal(plan.rollouts, undefined);
  assert.equal(plan.actions, []);
});

test('without routers there is nothing to judge by: the canary is promoted once the hold is over', () => {
  const none = lcConfig([model('m', { replicas: 4, rollout })], { routers: [] });
  const reps = [0, 1, 2, 3].map((n) => rep(none, `m-${n}`, 'n1', [n], { spec: 'oldspec1' }));
  const state = withRollout({ spec: specOf(none, 'm'), stage: 'canary', holdSince: T0, canaries: ['m-4'], baseline: {} });
  const { plan } = planned(none, snap(none, [...reps, rep(none, 'm-4', 'n2', [0])], [], at(600)), state);
  assert.equal(plan.rollouts![0]!.stage, 'rolling');
});

test('without rollout a changed spec is replaced as before, now with a drain', () => {
  const plain = lcConfig([model('m', { replicas: 1 })]);
  const { plan } = planned(plain, snap(plain, [rep(plain, 'm-0', 'n1', [0], { spec: 'oldspec1' })], [router('rt-1')]));
  assert.equal(lines(plan), ['start m-1 n2[0]', 'drain m-0 (spec changed)']);
  assert.equal(plan.rollouts, undefined);
});

test.run();
