// Rollouts, the hold (docs/safety.md#rollouts): when it begins, what it says,
// what it remembers, and that old replicas beyond `replicas` are stopped at
// every step of it.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { RolloutRecord } from '../../src/types/plan.js';
import type { ReplicaReport } from '../../src/types/snapshot.js';
import { emptyState, type State } from '../../src/types/state.js';
import { at, lcConfig, lines, model, planned, rep, router, snap, specOf, T0, type Rep } from './lifecycle-fixture.js';

const rollout = { canary: 1, holdMs: 600_000, maxErrorRate: 0.05 };
const c = lcConfig([model('m', { replicas: 4, rollout })]);
const S = specOf(c, 'm');
const head = `canary 1 of 4 for spec ${S}`;
const holdText = `${head}: holding 10m, then judged by its error rate (at most 5%)`;
const old = (n: number, gpu = n): Rep => rep(c, `m-${n}`, 'n1', [gpu], { spec: 'oldspec1' });
// Five old replicas where four are wanted: m-5 is the one surplus.
const fiveOld = () => [old(0), old(1), old(2), old(3), old(5)];
const canary = (extra: Partial<ReplicaReport> = {}): Rep => rep(c, 'm-4', 'n2', [0], extra);
const withRollout = (rec: RolloutRecord): State => ({ ...emptyState(), lifecycle: { draining: {}, rollouts: { m: rec } } });
const served = (requests: number, errors: number) => router('rt-1', { served: { 'm-4': { requests, errors } } });
const baseline = { 'rt-1': { startedAt: '2026-11-28T00:00:00Z', requests: 10, errors: 0 } };
const holding = (extra: Partial<RolloutRecord> = {}): RolloutRecord => ({ spec: S, stage: 'canary', holdSince: T0, canaries: ['m-4'], baseline, ...extra });
const surplus = 'drain m-5 (surplus (5 of 4 on the old spec))';
const view = (s: State, routers = [served(10, 0)], when = T0) => {
  const { plan } = planned(c, snap(c, [...fiveOld(), canary()], routers, when), s);
  const r = plan.rollouts![0]!;
  return { lines: lines(plan), stage: r.stage, text: r.text, next: r.next };
};

test('the hold begins once the canary runs: it says how long and by what error rate it is judged, and remembers the counters seen then', () => {
  assert.equal(view(withRollout({ spec: S, stage: 'canary' })), { lines: [surplus], stage: 'hold', text: holdText, next: holding() });
});

test('no hold begins while a router does not answer with counters: the canary waits, the surplus old replica still stops', () => {
  const silent = router('rt-1', { served: undefined });
  assert.equal(view(withRollout({ spec: S, stage: 'canary' }), [silent]), {
    lines: [surplus],
    stage: 'canary',
    text: `${head}: waiting for every router to answer to begin the hold`,
    next: { spec: S, stage: 'canary' },
  });
});

test('a remembered hold counts only when it has its start, its baseline and the same canaries; otherwise it begins again now', () => {
  const again = (rec: RolloutRecord) => view(withRollout(rec), [served(10, 0)], at(900));
  const fresh = { lines: [surplus], stage: 'hold', text: holdText, next: holding({ holdSince: at(900) }) };
  const { holdSince: _s, ...noStart } = holding();
  const { baseline: _b, ...noBaseline } = holding();
  assert.equal(again(noStart), fresh, 'no holdSince');
  assert.equal(again(noBaseline), fresh, 'no baseline');
  assert.equal(again(holding({ canaries: ['m-9'] })), fresh, 'other canaries');
  // The same record, whole, is judged: 30 more requests, no error, promotes.
  assert.equal(view(withRollout(holding()), [served(40, 0)], at(900)).stage, 'rolling');
});

test('a remembered hold without canaries matches a rollout that has none (canary: 0)', () => {
  const c0 = lcConfig([model('m', { replicas: 2, rollout: { ...rollout, canary: 0 } })]);
  const S0 = specOf(c0, 'm');
  const olds = [0, 1].map((n) => rep(c0, `m-${n}`, 'n1', [n], { spec: 'oldspec1' }));
  const rec: RolloutRecord = { spec: S0, stage: 'canary', holdSince: T0, baseline: { 'rt-1': { startedAt: '2026-11-28T00:00:00Z', requests: 0, errors: 0 } } };
  const { plan } = planned(c0, snap(c0, olds, [router('rt-1')], at(60)), { ...emptyState(), lifecycle: { draining: {}, rollouts: { m: rec } } });
  assert.equal(plan.rollouts![0]!.stage, 'hold');
  assert.equal(plan.rollouts![0]!.next, { ...rec, canaries: [] }, 'the hold still runs from T0');
});

test('during the hold, and past it while evidence is missing, the surplus old replica still stops and the hold is kept as it was', () => {
  const during = view(withRollout(holding()), [served(40, 9)], at(300));
  assert.equal(during, { lines: [surplus], stage: 'hold', text: holdText, next: holding() });
  const silent = view(withRollout(holding()), [router('rt-1', { served: undefined })], at(600));
  assert.equal(silent, { lines: [surplus], stage: 'hold', text: `${head}: hold over, waiting for every router to answer`, next: holding() });
  const few = view(withRollout(holding()), [served(25, 0)], at(600));
  assert.equal(few, { lines: [surplus], stage: 'hold', text: `${head}: hold over, waiting for 20 requests to judge by`, next: holding() });
});

test('an error rate exactly at maxErrorRate promotes (only above it rolls back)', () => {
  // 20 more requests, 1 more error: 5%.
  const r = view(withRollout(holding()), [served(30, 1)], at(600));
  assert.equal([r.stage, r.next], ['rolling', { spec: S, stage: 'rolling' }]);
});

test.run();
