// Rollouts: which replicas count as the old spec and which as the new one
// (src/plan/rollout.ts planRollout), when there is no rollout at all, what a
// remembered failure keeps doing, and how the stops of a promotion merge.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { classify } from '../../src/plan/classify.js';
import { planRollout } from '../../src/plan/rollout.js';
import type { Config } from '../../src/types/config.js';
import type { RolloutRecord } from '../../src/types/plan.js';
import type { ReplicaReport, Snapshot } from '../../src/types/snapshot.js';
import { emptyState, type State } from '../../src/types/state.js';
import { at, drainingState, lcConfig, lines, model, planned, rep, router, snap, specOf, T0, type Rep } from './lifecycle-fixture.js';

const rollout = { canary: 1, holdMs: 600_000, maxErrorRate: 0.05 };
const c = lcConfig([model('m', { replicas: 4, rollout })]);
const S = specOf(c, 'm');
const old = (n: number, node = 'n1', gpu = n, extra: Partial<ReplicaReport> = {}): Rep => rep(c, `m-${n}`, node, [gpu], { spec: 'oldspec1', ...extra });
const fresh = (n: number, node: string, gpu: number, extra: Partial<ReplicaReport> = {}): Rep => rep(c, `m-${n}`, node, [gpu], extra);
const withRollout = (rec: RolloutRecord, base: State = emptyState()): State => ({
  ...base,
  lifecycle: { draining: base.lifecycle?.draining ?? {}, rollouts: { m: rec } },
});
/** `node` silent since a minute before T0: unreachable, not lost; its replicas are kept as last reported. */
const silent = (s: Snapshot, node: string): Snapshot => ({
  ...s,
  nodes: s.nodes.map((n) =>
    n.name === node && n.reachable
      ? { name: n.name, reachable: false, error: 'connect ETIMEDOUT', unreachableSince: '2026-11-29T07:59:00Z', lastReport: n.report }
      : n,
  ),
});
const stage = (cfg: Config, s: Snapshot, state: State = emptyState()) => {
  const { plan } = planned(cfg, s, state);
  const r = plan.rollouts?.[0];
  return { lines: lines(plan), rollout: r ? [r.stage, r.text] : null };
};

test('an old-spec replica on an unreachable node counts as old, not as a canary: the canary still starts', () => {
  // m-0 (old spec) sits on n2, silent; m-1..m-3 (old spec) on n1.
  const s = silent(snap(c, [old(0, 'n2', 0), old(1), old(2), old(3)], [router('rt-1')]), 'n2');
  assert.equal(stage(c, s), { lines: ['start m-4 n1[0]'], rollout: ['canary', `canary 1 of 4 for spec ${S}: starting`] });
});

test('a canary on an unreachable node still counts as the canary (it is not old): the rollout waits for it', () => {
  const s = silent(snap(c, [old(0), old(1), old(2), old(3), fresh(4, 'n2', 0)], [router('rt-1')]), 'n2');
  assert.equal(stage(c, s), { lines: [], rollout: ['canary', `canary 1 of 4 for spec ${S}: starting`] });
  // A replica of no known spec there (an older agent) is not old either.
  const noSpec = silent(snap(c, [old(0), old(1), old(2), old(3), fresh(4, 'n2', 0, { spec: undefined })], [router('rt-1')]), 'n2');
  assert.equal(stage(c, noSpec), { lines: [], rollout: ['canary', `canary 1 of 4 for spec ${S}: starting`] });
});

test('one old replica reachable and one unreachable: still a rollout, with both counted old', () => {
  const two = lcConfig([model('m', { replicas: 2, rollout })]);
  const S2 = specOf(two, 'm');
  const s = silent(snap(two, [rep(two, 'm-0', 'n1', [0], { spec: 'oldspec1' }), rep(two, 'm-1', 'n2', [0], { spec: 'oldspec1' })], [router('rt-1')]), 'n2');
  assert.equal(stage(two, s), { lines: ['start m-2 n1[1]'], rollout: ['canary', `canary 1 of 2 for spec ${S2}: starting`] });
});

test('no rollout for a model scaled to zero (its old replica is stopped as before), or for a model whose engine is unknown', () => {
  const zero = lcConfig([model('m', { replicas: 0, rollout })]);
  const z = planned(zero, snap(zero, [rep(zero, 'm-0', 'n1', [0], { spec: 'oldspec1' })], [router('rt-1')]));
  assert.equal(z.plan.rollouts, undefined);
  assert.equal(lines(z.plan), ['drain m-0 (spec changed)']);
  // The engine unknown: no spec to roll to, whatever the replicas say.
  const { fleet } = planned(c, snap(c, [old(0), old(1), old(2), old(3)], [router('rt-1')]));
  const group = classify(fleet).byModel.get('m')!;
  assert.ok(group.notKept.length === 4, 'four replicas of another spec');
  assert.is(planRollout({ ...group, spec: null }, fleet, emptyState()), null);
  assert.ok(planRollout(group, fleet, emptyState()) !== null);
});

test('a replica of the new spec moved off a cordoned node is no rollout by itself, and with old replicas it rolls as an old one', () => {
  const cord = lcConfig([model('m', { replicas: 2, rollout })]);
  const cfg: Config = { ...cord, cluster: { ...cord.cluster, nodes: cord.cluster.nodes.map((n) => (n.name === 'n1' ? { ...n, cordon: true } : n)) } };
  const S2 = specOf(cfg, 'm');
  // Only new-spec replicas, one on the cordoned n1: replaced as before, no rollout.
  const none = stage(cfg, snap(cfg, [rep(cfg, 'm-0', 'n1', [0]), rep(cfg, 'm-1', 'n2', [0])], [router('rt-1')]));
  assert.is(none.rollout, null);
  // Rolling, m-0 old on n2, m-1 new on cordoned n1, m-2 new on n2: three serve where two are wanted: the cordoned one is stoppable like the old one, and is the one replaced.
  const s = snap(cfg, [rep(cfg, 'm-0', 'n2', [1], { spec: 'oldspec1' }), rep(cfg, 'm-1', 'n1', [0]), rep(cfg, 'm-2', 'n2', [0])], [router('rt-1')]);
  const rolling = stage(cfg, s, withRollout({ spec: S2, stage: 'rolling' }));
  assert.equal(rolling.rollout, ['rolling', `rolling to spec ${S2}: 1 of 2 on the new spec`]);
  assert.equal(rolling.lines, [`drain m-1 (replaced by spec ${S2} (rollout))`]);
});

test("another model's drain does not hold a rollout back; a failed old replica is no failed canary", () => {
  const two = lcConfig([model('m', { replicas: 4, rollout }), model('x', { replicas: 0 })]);
  const S2 = specOf(two, 'm');
  const o = (n: number, extra: Partial<ReplicaReport> = {}) => rep(two, `m-${n}`, 'n1', [n], { spec: 'oldspec1', ...extra });
  // x-0 drains (a router still sends it a request); m is rolling with nothing else under way: it surges.
  const draining = drainingState({ 'x-0': { since: T0 } }, withRollout({ spec: S2, stage: 'rolling' }));
  const s = snap(two, [o(0), o(1), o(2), rep(two, 'm-4', 'n2', [0]), rep(two, 'x-0', 'n2', [7])], [router('rt-1', { inflight: { 'x-0': 1 } })], at(60));
  assert.equal(stage(two, s, draining).lines, ['start m-3 n2[1]']);
  // A failed replica of the old spec during the canary: stopped, and the canary goes on.
  const f = stage(two, snap(two, [o(0, { state: 'failed' }), o(1), o(2), o(3)], [router('rt-1')]), withRollout({ spec: S2, stage: 'canary' }));
  assert.equal(f, { lines: ['stop m-0 (failed)', 'start m-4 n2[0]'], rollout: ['canary', `canary 1 of 4 for spec ${S2}: starting`] });
});

test('a failed old replica still drained by routers does not hold the rolling back: it stops at once and the next surge goes', () => {
  const rolling = withRollout({ spec: S, stage: 'rolling' });
  const draining = drainingState({ 'm-2': { since: T0 } }, rolling);
  const s = snap(
    c,
    [old(0), old(1), old(2, 'n1', 2, { state: 'failed' }), fresh(4, 'n2', 0), fresh(5, 'n2', 1)],
    [router('rt-1', { inflight: { 'm-2': 1 } })],
    at(60),
  );
  assert.equal(stage(c, s, draining).lines, ['stop m-2 (surplus (2 of 1); failed)', 'start m-3 n1[2]']);
});

test("a remembered failure without a reason says the canaries failed; the failed spec's replicas and the surplus old ones stop", () => {
  const failed = withRollout({ spec: S, stage: 'failed', failedAt: T0 });
  const s = snap(c, [old(0), old(1), old(2), old(3), old(5), fresh(4, 'n2', 0)], [router('rt-1')], at(60));
  assert.equal(stage(c, s, failed), {
    lines: [`drain m-4 (rollout failed for spec ${S})`, 'drain m-5 (surplus (5 of 4 on the old spec))'],
    rollout: ['failed', `rollout failed for spec ${S}: canaries failed; the old spec keeps serving`],
  });
});

test('promoted with a surplus old replica: the surplus stop and the first replacement are one stop, not two', () => {
  const holding: RolloutRecord = {
    spec: S,
    stage: 'canary',
    holdSince: T0,
    canaries: ['m-4'],
    baseline: { 'rt-1': { startedAt: '2026-11-28T00:00:00Z', requests: 0, errors: 0 } },
  };
  const s = snap(c, [old(0), old(1), old(2), old(3), old(5), fresh(4, 'n2', 0)], [router('rt-1', { served: { 'm-4': { requests: 30, errors: 0 } } })], at(600));
  const { fleet } = planned(c, s, withRollout(holding));
  const d = planRollout(classify(fleet).byModel.get('m')!, fleet, withRollout(holding))!;
  assert.equal(
    d.stops.map((x) => [x.replica.id, x.reason]),
    [['m-5', 'surplus (5 of 4 on the old spec)']],
  );
  assert.is(d.plan.stage, 'rolling');
});

test.run();
