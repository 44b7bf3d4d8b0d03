// The liveness events of docs/notifications.md: gpu.quarantined once per
// quarantine (its end closes it silently) and replica.stalled once per
// transition into stalled or ejected (serving again, or gone, closes it). Also
// rollout.failed's default reason and a plan's rollouts that did not fail.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { detectEvents } from '../../src/notify/events.js';
import type { Fleet, FleetReplica } from '../../src/types/fleet.js';
import type { Plan, RolloutPlan } from '../../src/types/plan.js';
import { emptyState, type QuarantineRecord, type State } from '../../src/types/state.js';
import { conditionFleet } from '../fixtures/index.js';

const T = ['2026-11-29T08:00:00Z', '2026-11-29T08:05:00Z', '2026-11-29T08:10:00Z', '2026-11-29T08:15:00Z'];

function fleetWith(extra: { quarantine?: Record<string, QuarantineRecord>; stuck?: Record<string, Partial<FleetReplica>> }, now: string): Fleet {
  const f = conditionFleet(
    {
      nodes: { n1: 'reachable', n2: 'reachable' },
      models: { m: 2 },
      replicas: { 'm-0': ['m', 'n1', 'running'], 'm-1': ['m', 'n2', 'running'] },
    },
    now,
  );
  const replicas = f.replicas.map((r) => ({ ...r, ...(extra.stuck?.[r.id] ?? {}) }));
  return {
    ...f,
    replicas,
    replicaById: new Map(replicas.map((r) => [r.id, r])),
    ...(extra.quarantine ? { quarantine: extra.quarantine } : {}),
  };
}

const detect = (prev: State, fleet: Fleet | null, now: string, plan: Plan | null = null) =>
  detectEvents(prev, { cluster: 'prod-eu', fleet, plan, applyFailures: [], configErrors: null, now });
const names = (r: { events: { event: string; subject: string }[] }) => r.events.map((e) => `${e.event} ${e.subject}`);

const q = (node: string, index: number): QuarantineRecord => ({
  node,
  index,
  code: 79,
  reason: 'Xid 79 <fell off the bus>',
  since: '2026-11-29T07:55:00Z',
  until: '2026-11-30T07:55:00Z',
});

test('gpu.quarantined fires once per GPU, sorted by GPU, with its text and details; its end closes it without an event', () => {
  // Inserted out of order: the events come sorted by node:index.
  const quarantine = { 'n2:1': q('n2', 1), 'n1:0': q('n1', 0) };
  const t1 = detect(emptyState(), fleetWith({ quarantine }, T[0]!), T[0]!);
  assert.equal(names(t1), ['gpu.quarantined n1:0', 'gpu.quarantined n2:1']);
  assert.equal(t1.events[0], {
    event: 'gpu.quarantined',
    cluster: 'prod-eu',
    time: T[0],
    subject: 'n1:0',
    text: '[prod-eu] GPU n1:0 is quarantined until 2026-11-30T07:55:00Z: Xid 79 &lt;fell off the bus>; its replica is replaced',
    details: { node: 'n1', index: 0, code: 79, reason: 'Xid 79 <fell off the bus>', since: '2026-11-29T07:55:00Z', until: '2026-11-30T07:55:00Z' },
  });
  assert.equal(t1.state.notified, { 'gpu.quarantined/n1:0': T[0], 'gpu.quarantined/n2:1': T[0] });

  // Still quarantined: nothing again, both stay open.
  const t2 = detect(t1.state, fleetWith({ quarantine }, T[1]!), T[1]!);
  assert.equal(names(t2), []);
  assert.equal(t2.state.notified, t1.state.notified);

  // One released: its condition closes, silently; the other stays open.
  const t3 = detect(t2.state, fleetWith({ quarantine: { 'n2:1': q('n2', 1) } }, T[2]!), T[2]!);
  assert.equal(names(t3), []);
  assert.equal(t3.state.notified, { 'gpu.quarantined/n2:1': T[0] });

  // A new quarantine of the released GPU is a new transition.
  const t4 = detect(t3.state, fleetWith({ quarantine }, T[3]!), T[3]!);
  assert.equal(names(t4), ['gpu.quarantined n1:0']);
});

test('no quarantine in the fleet closes every open gpu.quarantined; no fleet closes nothing', () => {
  const t1 = detect(emptyState(), fleetWith({ quarantine: { 'n1:0': q('n1', 0) } }, T[0]!), T[0]!);
  assert.equal(Object.keys(t1.state.notified), ['gpu.quarantined/n1:0']);
  assert.equal(detect(t1.state, null, T[1]!).state.notified, t1.state.notified);
  const t2 = detect(t1.state, fleetWith({}, T[1]!), T[1]!);
  assert.equal(names(t2), []);
  assert.equal(t2.state.notified, {});
});

test('replica.stalled fires once for a stalled replica and once for an ejected one, each with its own words and since', () => {
  const stuck = { 'm-0': { stalledSince: '2026-11-29T07:50:00Z' }, 'm-1': { ejectedSince: '2026-11-29T07:52:00Z' } };
  const t1 = detect(emptyState(), fleetWith({ stuck }, T[0]!), T[0]!);
  assert.equal(names(t1), ['replica.stalled m-0', 'replica.stalled m-1']);
  assert.equal(t1.events[0], {
    event: 'replica.stalled',
    cluster: 'prod-eu',
    time: T[0],
    subject: 'm-0',
    text: '[prod-eu] Replica m-0 of m is stalled (no progress with requests running) since 2026-11-29T07:50:00Z; it is replaced past liveness.replaceAfter',
    details: { replica: 'm-0', model: 'm', nodes: ['n1'], stalledSince: '2026-11-29T07:50:00Z' },
  });
  assert.equal(t1.events[1], {
    event: 'replica.stalled',
    cluster: 'prod-eu',
    time: T[0],
    subject: 'm-1',
    text: '[prod-eu] Replica m-1 of m is ejected by every router since 2026-11-29T07:52:00Z; it is replaced past liveness.replaceAfter',
    details: { replica: 'm-1', model: 'm', nodes: ['n2'], ejectedSince: '2026-11-29T07:52:00Z' },
  });
  assert.equal(t1.state.notified, { 'replica.stalled/m-0': T[0], 'replica.stalled/m-1': T[0] });

  // Still stuck: no resend, both stay open.
  const t2 = detect(t1.state, fleetWith({ stuck }, T[1]!), T[1]!);
  assert.equal(names(t2), []);
  assert.equal(t2.state.notified, t1.state.notified);

  // m-0 serves again: closed, silently; m-1 stays open.
  const t3 = detect(t2.state, fleetWith({ stuck: { 'm-1': stuck['m-1'] } }, T[2]!), T[2]!);
  assert.equal(names(t3), []);
  assert.equal(t3.state.notified, { 'replica.stalled/m-1': T[0] });

  // m-0 stalls again: a new transition.
  const t4 = detect(t3.state, fleetWith({ stuck }, T[3]!), T[3]!);
  assert.equal(names(t4), ['replica.stalled m-0']);
});

test('a replica that is not running is not stalled, whatever its stalledSince says', () => {
  const f = fleetWith({ stuck: { 'm-0': { stalledSince: '2026-11-29T07:50:00Z', state: 'failed' } } }, T[0]!);
  const t1 = detect(emptyState(), f, T[0]!);
  assert.equal(names(t1), []);
  assert.equal(t1.state.notified, {});
});

const plan = (rollouts: RolloutPlan[] | undefined): Plan => ({
  version: 1,
  changes: false,
  blocked: null,
  actions: [],
  unplaceable: [],
  ...(rollouts ? { rollouts } : {}),
});

test('rollout.failed: a rollout still under way is no failure; a failed one without a reason says its canaries failed', () => {
  const canary: RolloutPlan = { model: 'a', spec: 'aaaa1111', stage: 'canary', text: 'canary 1 of 2', next: { spec: 'aaaa1111', stage: 'canary' } };
  const hold: RolloutPlan = { model: 'h', spec: 'hhhh1111', stage: 'hold', text: 'hold', next: { spec: 'hhhh1111', stage: 'canary' } };
  const failed: RolloutPlan = { model: 'b', spec: 'bbbb2222', stage: 'failed', text: 'rollout failed', next: { spec: 'bbbb2222', stage: 'failed' } };
  const t1 = detect(emptyState(), null, T[0]!, plan([canary, hold, failed]));
  assert.equal(names(t1), ['rollout.failed b']);
  assert.equal(t1.events[0]!.details, { model: 'b', spec: 'bbbb2222', reason: 'its canaries failed' });
  assert.is(
    t1.events[0]!.text,
    '[prod-eu] Rollout of b to spec bbbb2222 failed: its canaries failed. The old spec keeps serving; this spec is not tried again until models.yaml changes it.',
  );
  // A plan without rollouts closes it, silently.
  const t2 = detect(t1.state, null, T[1]!, plan(undefined));
  assert.equal(names(t2), []);
  assert.equal(t2.state.notified, {});
});

test.run();
