// Events of the lifecycle (docs/safety.md#rollouts): rollout.failed once per
// failed spec; model.down when what still runs is draining or fails its
// answer check.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { detectEvents } from '../../src/notify/events.js';
import type { Fleet } from '../../src/types/fleet.js';
import type { Plan } from '../../src/types/plan.js';
import { emptyState, type State } from '../../src/types/state.js';
import { at, drainingState, lcConfig, model, planned, rep, router, snap, specOf, T0 } from '../plan/lifecycle-fixture.js';

const detect = (prev: State, fleet: Fleet, plan: Plan, now: string) =>
  detectEvents(prev, { cluster: 'prod-eu', fleet, plan, applyFailures: [], configErrors: null, now });
const names = (r: { events: { event: string; subject: string }[] }) => r.events.map((e) => `${e.event} ${e.subject}`);

test('rollout.failed fires once for a failed spec, with its reason, and models.yaml changing the spec closes it', () => {
  const rollout = { canary: 1, holdMs: 0, maxErrorRate: 0.05 };
  const c = lcConfig([model('m', { replicas: 1, rollout })]);
  const S = specOf(c, 'm');
  const reps = [rep(c, 'm-0', 'n1', [0], { spec: 'oldspec1' }), rep(c, 'm-1', 'n2', [0], { state: 'failed', error: 'its process (pid 9) exited' })];
  const state: State = { ...emptyState(), everRunning: ['m'], lifecycle: { draining: {}, rollouts: { m: { spec: S, stage: 'canary' } } } };
  const first = planned(c, snap(c, reps, [router('rt-1')]), state);
  const t1 = detect(state, first.fleet, first.plan, T0);
  assert.equal(names(t1), ['rollout.failed m']);
  assert.equal(t1.events[0]!.details, { model: 'm', spec: S, reason: 'canary m-1 failed: its process (pid 9) exited' });
  assert.match(
    t1.events[0]!.text,
    /^\[prod-eu\] Rollout of m to spec \w+ failed: canary m-1 failed: its process \(pid 9\) exited\. The old spec keeps serving/,
  );
  // Later ticks: rolled back, not sent again.
  const failed: State = { ...t1.state, lifecycle: { draining: {}, rollouts: { m: first.plan.rollouts![0]!.next } } };
  const later = planned(c, snap(c, [reps[0]!], [router('rt-1')], at(60)), failed);
  assert.equal(names(detect(failed, later.fleet, later.plan, at(60))), []);
  // models.yaml goes back to the old spec (or on to a new one): the condition closes, silently.
  const back = lcConfig([model('m', { replicas: 1 })]);
  const fixed = planned(back, snap(back, [rep(back, 'm-0', 'n1', [0])], [router('rt-1')], at(120)), failed);
  const t3 = detect(failed, fixed.fleet, fixed.plan, at(120));
  assert.equal(names(t3), []);
  assert.equal(Object.keys(t3.state.notified), []);
});

test('a model whose only running replica fails its answer check is down; one whose only running replica drains is down too', () => {
  const c = lcConfig([model('m', { replicas: 1 })]);
  const state: State = { ...emptyState(), everRunning: ['m'] };
  const wrong = planned(
    c,
    snap(c, [rep(c, 'm-0', 'n1', [0], { check: { ok: false, at: T0, error: 'expected /ready/i, got "no"' } })], [router('rt-1')]),
    state,
  );
  const t1 = detect(state, wrong.fleet, wrong.plan, T0);
  assert.equal(names(t1), ['model.down m']);
  const draining = drainingState({ 'm-0': { since: T0 } }, state);
  const d = planned(c, snap(c, [rep(c, 'm-0', 'n1', [0])], [router('rt-1', { inflight: { 'm-0': 1 } })], at(60)), draining);
  assert.equal(names(detect(draining, d.fleet, d.plan, at(60))), ['model.down m']);
  const ok = planned(c, snap(c, [rep(c, 'm-0', 'n1', [0], { check: { ok: true, at: T0 } })], [router('rt-1')], at(120)), t1.state);
  assert.equal(names(detect(t1.state, ok.fleet, ok.plan, at(120))), ['model.recovered m']);
});

test.run();
