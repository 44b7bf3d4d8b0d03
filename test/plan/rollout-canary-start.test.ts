// The canary stage of a rollout (docs/safety.md#rollouts): how many canaries
// start, what holds the hold back, why a canary fails, and old replicas beyond
// `replicas` stopped as surplus meanwhile.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ReplicaReport, Snapshot } from '../../src/types/snapshot.js';
import { emptyState, type State } from '../../src/types/state.js';
import { lcConfig, lines, model, planned, rep, router, snap, specOf, T0, type Rep } from './lifecycle-fixture.js';

const rollout = { canary: 1, holdMs: 600_000, maxErrorRate: 0.05 };
const c = lcConfig([model('m', { replicas: 4, rollout })]);
const S = specOf(c, 'm');
const old = (n: number): Rep => rep(c, `m-${n}`, 'n1', [n], { spec: 'oldspec1' });
const olds = (k = 4) => Array.from({ length: k }, (_, n) => old(n));
const canary = (extra: Partial<ReplicaReport> = {}): Rep => rep(c, 'm-9', 'n2', [0], extra);
const started = (): State => ({ ...emptyState(), lifecycle: { draining: {}, rollouts: { m: { spec: S, stage: 'canary' } } } });
const summary = (s: Snapshot, state: State = started()) => {
  const { plan } = planned(c, s, state);
  const r = plan.rollouts![0]!;
  return { lines: lines(plan), stage: r.stage, text: r.text, next: r.next };
};

test('a canary that failed without an error, or fails its answer check without one, is named alone as the reason', () => {
  const failed = summary(snap(c, [...olds(), canary({ state: 'failed' })], [router('rt-1')]));
  assert.equal([failed.stage, failed.next.reason], ['failed', 'canary m-9 failed']);
  assert.is(failed.text, `rollout failed for spec ${S}: canary m-9 failed; the old spec keeps serving`);
  const wrong = summary(snap(c, [...olds(), canary({ check: { ok: false, at: T0 } })], [router('rt-1')]));
  assert.equal([wrong.stage, wrong.next.reason], ['failed', 'canary m-9 fails its answer check']);
});

test('with canary 2, one canary already running, only the missing one starts', () => {
  const c2 = lcConfig([model('m', { replicas: 4, rollout: { ...rollout, canary: 2 } })]);
  const reps = [...[0, 1, 2, 3].map((n) => rep(c2, `m-${n}`, 'n1', [n], { spec: 'oldspec1' })), rep(c2, 'm-9', 'n2', [0])];
  const { plan } = planned(c2, snap(c2, reps, [router('rt-1')]));
  assert.equal(lines(plan), ['start m-4 n2[1]']);
  assert.equal([plan.rollouts![0]!.stage, plan.rollouts![0]!.text], ['canary', `canary 2 of 4 for spec ${specOf(c2, 'm')}: starting`]);
});

test('a canary still starting holds the hold back: the stage stays canary "starting", and the old surplus still stops', () => {
  const s = summary(snap(c, [...olds(5), canary({ state: 'starting' })], [router('rt-1')]));
  assert.equal(s, {
    lines: ['drain m-4 (surplus (5 of 4 on the old spec))'],
    stage: 'canary',
    text: `canary 1 of 4 for spec ${S}: starting`,
    next: { spec: S, stage: 'canary' },
  });
});

test('a running canary on an unreachable node holds the hold back too', () => {
  const s = snap(c, [...olds(), canary()], [router('rt-1', { served: { 'm-9': { requests: 0, errors: 0 } } })]);
  const n2 = s.nodes.find((n) => n.name === 'n2')!;
  if (!n2.reachable) throw new Error('fixture: n2 should be reachable');
  s.nodes = s.nodes.map((n) =>
    n.name === 'n2' ? { name: 'n2', reachable: false, error: 'connect ETIMEDOUT', unreachableSince: T0, lastReport: n2.report } : n,
  );
  const r = summary(s);
  assert.equal([r.stage, r.text, r.next], ['canary', `canary 1 of 4 for spec ${S}: starting`, { spec: S, stage: 'canary' }]);
});

test('old replicas beyond `replicas` are stopped as surplus during the canary stage, only as many as are extra, the longest unused first', () => {
  const idle = router('rt-1', { lastUsed: { 'm-0': '2026-11-29T07:00:00Z', 'm-1': T0, 'm-2': T0, 'm-3': T0, 'm-4': T0, 'm-5': T0 } });
  const s = summary(snap(c, olds(6), [idle]), emptyState());
  assert.equal(
    s.lines.filter((l) => !l.startsWith('start')),
    ['drain m-0 (surplus (6 of 4 on the old spec))', 'drain m-5 (surplus (6 of 4 on the old spec))'],
  );
  assert.equal(s.stage, 'canary');
  // Exactly `replicas` old ones: none is surplus.
  assert.equal(summary(snap(c, olds(4), [router('rt-1')]), emptyState()).lines, ['start m-4 n2[0]']);
});

test.run();
