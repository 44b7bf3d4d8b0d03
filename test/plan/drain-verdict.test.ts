// drainVerdict and stopTimings called directly: the verdict's own fields (done,
// inflight, text) for the cases the planner's stop reasons do not spell out.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { drainVerdict, stopTimings } from '../../src/plan/drain.js';
import type { Config } from '../../src/types/config.js';
import type { DrainMark, Fleet, FleetReplica } from '../../src/types/fleet.js';
import type { RouterObservation } from '../../src/types/snapshot.js';
import { at, lcConfig, model, planned, rep, router, snap, T0 } from './lifecycle-fixture.js';

const mark = (since: string, outOfTablesAt: string | null = since): DrainMark => ({ since, reason: 'surplus (2 of 1)', outOfTablesAt });

function world(c: Config, routers: RouterObservation[], observedAt: string): { fleet: Fleet; replica: FleetReplica } {
  const { fleet } = planned(c, snap(c, [rep(c, 'm1-0', 'n1', [0]), rep(c, 'm1-1', 'n1', [1])], routers, observedAt));
  return { fleet, replica: fleet.replicas.find((r) => r.id === 'm1-1')! };
}

test("a replica's stop timings are its own model's, not the first model's", () => {
  const c = lcConfig([model('m0', { drainTimeoutMs: 60_000, stopGraceMs: 5_000 }), model('m1', { drainTimeoutMs: 300_000, stopGraceMs: 45_000 })]);
  const { fleet } = planned(c, snap(c, [], []));
  assert.equal(stopTimings(fleet, 'm1'), { drainTimeoutMs: 300_000, stopGraceMs: 45_000 });
  assert.equal(stopTimings(fleet, 'm0'), { drainTimeoutMs: 60_000, stopGraceMs: 5_000 });
});

test('with no router configured a drain is over at once, whatever the evidence and the time', () => {
  const c = lcConfig([model('m1', { replicas: 1 })], { routers: [] });
  // Not fresh (never out of the tables) and not timed out: only the no-router rule ends it.
  const { fleet, replica } = world(c, [], T0);
  assert.equal(drainVerdict(replica, mark(T0, null), fleet), { done: true, inflight: 0, text: 'drained (no router)' });
});

test('a drain still waiting says so, with the requests still in flight', () => {
  const c = lcConfig([model('m1', { replicas: 1, drainTimeoutMs: 300_000 })]);
  const { fleet, replica } = world(c, [router('rt-1', { inflight: { 'm1-1': 3 } })], at(60));
  assert.equal(drainVerdict(replica, mark(T0), fleet), { done: false, inflight: 3, text: 'draining' });
});

test('after drainTimeout every router that did not answer is named, comma-separated', () => {
  const c = lcConfig([model('m1', { replicas: 1, drainTimeoutMs: 300_000 })], { routers: ['rt-1', 'rt-2', 'rt-3'] });
  const silent = (name: string): RouterObservation => ({ name, reachable: false, error: 'connect ETIMEDOUT' });
  const { fleet, replica } = world(c, [silent('rt-1'), router('rt-2'), silent('rt-3')], at(300));
  assert.equal(drainVerdict(replica, mark(T0), fleet), { done: true, inflight: null, text: 'drainTimeout 5m passed (router rt-1, rt-3 did not answer)' });
});

test('after drainTimeout with every router answering but none since the table change, the stop says no router reported since', () => {
  const c = lcConfig([model('m1', { replicas: 1, drainTimeoutMs: 300_000 })], { routers: ['rt-1', 'rt-2'] });
  const { fleet, replica } = world(c, [router('rt-1'), router('rt-2')], at(300));
  // The tables were never confirmed without it: the routers' zeros prove nothing.
  assert.equal(drainVerdict(replica, mark(T0, null), fleet), {
    done: true,
    inflight: null,
    text: 'drainTimeout 5m passed (no router reported since it left the tables)',
  });
});

test('a replica of a model gone from models.yaml stops with cluster.yaml defaults:, else the built-in 10 m drain and 30 s grace', () => {
  const c = lcConfig([model('m1', { drainTimeoutMs: 300_000, stopGraceMs: 45_000 })]);
  const { fleet } = planned(c, snap(c, [], []));
  const timings = (f: Fleet) => {
    const t = stopTimings(f, 'gone');
    return [t.drainTimeoutMs, t.stopGraceMs];
  };
  assert.equal(timings(fleet), [600_000, 30_000]);
  const withDefaults: Fleet = {
    ...fleet,
    config: { ...fleet.config, cluster: { ...fleet.config.cluster, stopDefaults: { drainTimeoutMs: 120_000, stopGraceMs: 10_000 } } },
  };
  assert.equal(timings(withDefaults), [120_000, 10_000]);
});

test.run();
