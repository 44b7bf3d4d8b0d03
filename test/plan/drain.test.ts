// Drain before stop (docs/safety.md#stopping-a-replica): which stops drain first, when a
// drain is over, and what a draining replica counts as.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { summarize } from '../../src/status/index.js';
import { at, drainingState, lcConfig, lines, model, planned, rep, router, snap, T0 } from './lifecycle-fixture.js';

const m1 = (extra = {}) => model('m1', { replicas: 1, ...extra });

test('a surplus running replica drains first when routers may be sending it requests', () => {
  const c = lcConfig([m1()]);
  const { plan } = planned(c, snap(c, [rep(c, 'm1-0', 'n1', [0]), rep(c, 'm1-1', 'n1', [1])], [router('rt-1')]));
  assert.equal(lines(plan), ['drain m1-1 (surplus (2 of 1))']);
});

test('a stop goes at once with no router, with drainTimeout 0, and for a replica that is starting or failed', () => {
  const none = lcConfig([m1()], { routers: [] });
  assert.equal(lines(planned(none, snap(none, [rep(none, 'm1-0', 'n1', [0]), rep(none, 'm1-1', 'n1', [1])], [])).plan), ['stop m1-1 (surplus (2 of 1))']);
  const zero = lcConfig([m1({ drainTimeoutMs: 0 })]);
  assert.equal(lines(planned(zero, snap(zero, [rep(zero, 'm1-0', 'n1', [0]), rep(zero, 'm1-1', 'n1', [1])], [router('rt-1')])).plan), [
    'stop m1-1 (surplus (2 of 1))',
  ]);
  const c = lcConfig([m1({ replicas: 0 })]);
  const reps = [rep(c, 'm1-0', 'n1', [0], { state: 'starting' }), rep(c, 'm1-1', 'n1', [1], { state: 'failed' })];
  assert.equal(lines(planned(c, snap(c, reps, [router('rt-1')])).plan), ['stop m1-0 (surplus (1 of 0))', 'stop m1-1 (failed)']);
});

test('removed-model, replaced and lost-rank stops of running replicas drain too', () => {
  const c = lcConfig([model('m2', { replicas: 1 })]);
  const reps = [rep(c, 'gone-0', 'n1', [0]), rep(c, 'm2-0', 'n1', [1], { spec: 'oldspec1' })];
  const { plan } = planned(c, snap(c, reps, [router('rt-1')]));
  assert.equal(lines(plan), ['drain gone-0 (not in models.yaml)', 'start m2-1 n2[0]', 'drain m2-0 (spec changed)']);
  const replace = plan.actions.find((a) => a.replica === 'm2-0')!;
  assert.equal(replace.op === 'stop' && replace.waitFor, ['m2-1'], 'a replacement still waits for its successor before it drains');
  const big = lcConfig([model('big', { replicas: 1, gpus: 8, nodes: 2 })], { nodes: 3 });
  const ranks = [rep(big, 'big-0', 'n1', [0, 1, 2, 3, 4, 5, 6, 7]), { ...rep(big, 'big-0', 'n2', [0, 1, 2, 3, 4, 5, 6, 7]) }];
  ranks[1]!.report = { ...ranks[1]!.report, rank: 1 };
  const lostRank = planned(big, snap(big, ranks, [router('rt-1')], T0, {}, ['n2'])).plan;
  assert.equal(
    lines(lostRank).filter((l) => !l.startsWith('start')),
    ['drain big-0 (node lost)'],
  );
});

test('a draining replica is stopped once every router, asked after the table change, has nothing in flight for it', () => {
  const c = lcConfig([m1()]);
  const reps = [rep(c, 'm1-0', 'n1', [0]), rep(c, 'm1-1', 'n1', [1])];
  const state = drainingState({ 'm1-1': { since: T0 } });
  // Gathered in the tick that took it out of the tables: no evidence yet.
  assert.equal(lines(planned(c, snap(c, reps, [router('rt-1', { inflight: { 'm1-0': 2 } })], T0), state).plan), []);
  // The next tick: the router reports none in flight (absent from `inflight` = 0).
  const next = planned(c, snap(c, reps, [router('rt-1', { inflight: { 'm1-0': 2 } })], at(60)), state);
  assert.equal(lines(next.plan), ['stop m1-1 (surplus (2 of 1); drained)']);
  assert.equal(next.plan.actions[0]!.op === 'stop' && next.plan.actions[0]!.waitFor, []);
});

test('a drain waits while a router has requests in flight, or did not answer, until drainTimeout', () => {
  const c = lcConfig([m1({ drainTimeoutMs: 300_000 })], { routers: ['rt-1', 'rt-2'] });
  const reps = [rep(c, 'm1-0', 'n1', [0]), rep(c, 'm1-1', 'n1', [1])];
  const state = drainingState({ 'm1-1': { since: T0 } });
  const busy = [router('rt-1', { inflight: { 'm1-1': 3 } }), router('rt-2')];
  assert.equal(lines(planned(c, snap(c, reps, busy, at(60)), state).plan), []);
  const silent = [router('rt-1'), { name: 'rt-2', reachable: false as const, error: 'connect ETIMEDOUT' }];
  assert.equal(lines(planned(c, snap(c, reps, silent, at(60)), state).plan), [], 'a router that does not answer counts as still in flight');
  assert.equal(lines(planned(c, snap(c, reps, busy, at(300)), state).plan), ['stop m1-1 (surplus (2 of 1); drainTimeout 5m passed with 3 requests in flight)']);
  assert.equal(lines(planned(c, snap(c, reps, silent, at(300)), state).plan), [
    'stop m1-1 (surplus (2 of 1); drainTimeout 5m passed (router rt-2 did not answer))',
  ]);
});

test('evidence counts only after every router took a table without the replica', () => {
  const c = lcConfig([m1()]);
  const reps = [rep(c, 'm1-0', 'n1', [0]), rep(c, 'm1-1', 'n1', [1])];
  const refused = drainingState({ 'm1-1': { since: T0, outOfTablesAt: null } });
  assert.equal(lines(planned(c, snap(c, reps, [router('rt-1')], at(60)), refused).plan), []);
  const later = drainingState({ 'm1-1': { since: T0, outOfTablesAt: at(60) } });
  assert.equal(lines(planned(c, snap(c, reps, [router('rt-1')], at(60)), later).plan), [], 'gathered at the very tick that pushed the table');
  assert.equal(lines(planned(c, snap(c, reps, [router('rt-1')], at(120)), later).plan), ['stop m1-1 (surplus (2 of 1); drained)']);
  const old = [router('rt-1', { inflight: undefined })];
  assert.equal(lines(planned(c, snap(c, reps, old, at(120)), later).plan), [], 'a router without in-flight counts (older than 0.2) proves nothing');
});

test('a draining replica counts for nothing, keeps its GPUs, and is draining in the status', () => {
  const c = lcConfig([model('m1', { replicas: 2 })], { nodes: 1 });
  const reps = [rep(c, 'm1-0', 'n1', [0, 1, 2, 3], { port: 8000 }), rep(c, 'm1-1', 'n1', [4, 5, 6, 7], { port: 8001 })];
  const state = drainingState({ 'm1-1': { since: T0 } });
  const { fleet, plan } = planned(c, snap(c, reps, [router('rt-1', { inflight: { 'm1-1': 1 } })], at(60)), state);
  // m1 wants 2 and counts 1: the missing one has nowhere to go but the draining replica's GPUs.
  assert.equal(lines(plan), []);
  assert.equal(plan.unplaceable, [], 'waiting for a drain is not unplaceable');
  const report = summarize(fleet, plan.unplaceable, plan.blocked);
  assert.equal(report.models, [{ name: 'm1', desired: 2, running: 1, starting: 0, failed: 0, draining: 1 }]);
  assert.equal(
    report.replicas.map((r) => `${r.id} ${r.state}`),
    ['m1-0 running', 'm1-1 draining'],
  );
  assert.is(report.capacity[0]!.used, 8);
});

test('a model that cannot fit even once the drains end is still unplaceable', () => {
  const c = lcConfig([model('m1', { replicas: 1, gpus: 4 }), model('big', { replicas: 1, gpus: 8 })], { nodes: 1 });
  const reps = [rep(c, 'm1-0', 'n1', [0, 1, 2, 3]), rep(c, 'm1-1', 'n1', [4, 5, 6, 7], { port: 8001 })];
  const { plan } = planned(c, snap(c, reps, [router('rt-1', { inflight: { 'm1-1': 1 } })], at(60)), drainingState({ 'm1-1': { since: T0 } }));
  assert.equal(
    plan.unplaceable.map((u) => u.model),
    ['big'],
  );
});

test('the end of a drain is not counted against safety.maxStopFraction again, its start is', () => {
  const c = lcConfig([model('m1', { replicas: 1 })]);
  c.cluster.safety = { maxStopFraction: 0.5, minReachableFraction: 0 };
  const reps = [rep(c, 'm1-0', 'n1', [0]), rep(c, 'm1-1', 'n1', [1]), rep(c, 'm1-2', 'n1', [2])];
  // Served just now: a stop of an idle replica would not count (docs/config.md#on-demand-models).
  const used = router('rt-1', { lastUsed: { 'm1-0': T0, 'm1-1': T0, 'm1-2': T0 } });
  assert.ok(planned(c, snap(c, reps, [used])).plan.blocked, '2 of 3 drains begin: blocked');
  const state = drainingState({ 'm1-1': { since: T0 }, 'm1-2': { since: T0 } });
  const next = planned(c, snap(c, reps, [router('rt-1')], at(60)), state).plan;
  assert.is(next.blocked, null);
  assert.equal(next.actions.length, 2);
});

test('a draining replica that failed meanwhile is stopped at once', () => {
  const c = lcConfig([m1()]);
  const reps = [rep(c, 'm1-0', 'n1', [0]), rep(c, 'm1-1', 'n1', [1], { state: 'failed' })];
  const state = drainingState({ 'm1-1': { since: T0, outOfTablesAt: null } });
  assert.equal(lines(planned(c, snap(c, reps, [router('rt-1', { inflight: { 'm1-1': 4 } })], T0), state).plan), ['stop m1-1 (surplus (2 of 1); failed)']);
});

test.run();
