// docs/placement.md#stalled-and-ejected-replicas, the fleet's part: a replica
// is ejected only when every reachable router that routes it has it out (the
// latest since of those runs), stalled is told before ejected, and a stuck
// replica is replaced once liveness.replaceAfter has passed since then.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EJECTED, STALLED, ejectedSince, isStuckReason, replaceStuckReason, stuckOf } from '../../src/fleet/liveness.js';
import type { FleetReplica } from '../../src/types/fleet.js';
import type { RouterEjection, RouterObservation, RouterUsage } from '../../src/types/snapshot.js';
import { model } from '../fixtures/index.js';

const ej = (since: string): RouterEjection => ({ since, until: '2026-11-29T09:00:00Z', reason: 'errors', count: 1 });
function router(name: string, extra: Partial<RouterUsage> = {}): RouterObservation {
  return { name, reachable: true, report: { version: 1, startedAt: '2026-11-29T07:00:00Z', lastUsed: {}, ...extra } };
}
const table = (ids: string[]) => ({ m: ids.map((replica) => ({ replica, url: `http://10.0.0.1:8000/${replica}` })) });

test('ejected only when every reachable router that routes it has it out; then the latest since', () => {
  const a = router('rt-a', { ejected: { 'm-0': ej('2026-11-29T08:00:00Z') } });
  const b = router('rt-b', { ejected: { 'm-0': ej('2026-11-29T08:02:00Z') } });
  const c = router('rt-c', { ejected: { 'm-0': ej('2026-11-29T08:01:00Z') } });
  assert.is(ejectedSince('m-0', 'm', [a, b, c]), '2026-11-29T08:02:00Z');
  assert.is(ejectedSince('m-0', 'm', [b, a, c]), '2026-11-29T08:02:00Z', 'the latest, in any order');
  assert.is(ejectedSince('m-0', 'm', [a]), '2026-11-29T08:00:00Z');
  assert.is(ejectedSince('m-0', 'm', [a, router('rt-d')]), null, 'one router still routes it');
  assert.is(ejectedSince('m-0', 'm', [router('rt-d'), a]), null, 'one router still routes it, whichever comes first');
});

test('a router that cannot be reached, or whose table does not list the replica, does not count', () => {
  const a = router('rt-a', { ejected: { 'm-0': ej('2026-11-29T08:00:00Z') } });
  const down: RouterObservation = { name: 'rt-x', reachable: false, error: 'connect ECONNREFUSED' };
  assert.is(ejectedSince('m-0', 'm', [a, down]), '2026-11-29T08:00:00Z');
  const other = router('rt-o', { table: table(['m-1']) });
  assert.is(ejectedSince('m-0', 'm', [a, other]), '2026-11-29T08:00:00Z', 'rt-o does not route m-0');
  const noModel = router('rt-n', { table: {} });
  assert.is(ejectedSince('m-0', 'm', [a, noModel]), '2026-11-29T08:00:00Z', 'rt-n routes no replica of m');
  const routing = router('rt-r', { table: table(['m-1', 'm-0']) });
  assert.is(ejectedSince('m-0', 'm', [a, routing]), null, 'rt-r routes m-0 and has it in rotation');
});

test("two runs that began at the same moment, spelled differently: the first router's spelling stays", () => {
  const a = router('rt-a', { ejected: { 'm-0': ej('2026-11-29T08:00:00Z') } });
  const b = router('rt-b', { ejected: { 'm-0': ej('2026-11-29T08:00:00.000Z') } });
  assert.is(ejectedSince('m-0', 'm', [a, b]), '2026-11-29T08:00:00Z');
  assert.is(ejectedSince('m-0', 'm', [b, a]), '2026-11-29T08:00:00.000Z');
});

test('no router that routes it: not ejected', () => {
  assert.is(ejectedSince('m-0', 'm', []), null);
  assert.is(ejectedSince('m-0', 'm', [{ name: 'rt-x', reachable: false, error: 'timeout' }]), null);
  assert.is(ejectedSince('m-0', 'm', [router('rt-o', { table: table(['m-1']), ejected: { 'm-0': ej('2026-11-29T08:00:00Z') } })]), null);
});

const rep = (extra: Partial<FleetReplica>): FleetReplica =>
  ({ id: 'm-0', model: 'm', state: 'running', nodes: ['n1'], ranks: [], lost: false, unreachable: false, ...extra }) as FleetReplica;

test('stuckOf: stalled before ejected, only while running', () => {
  assert.equal(stuckOf(rep({ stalledSince: 'S', ejectedSince: 'E' })), { kind: 'stalled', since: 'S' });
  assert.equal(stuckOf(rep({ ejectedSince: 'E' })), { kind: 'ejected', since: 'E' });
  assert.is(stuckOf(rep({})), null);
  assert.is(stuckOf(rep({ state: 'starting', stalledSince: 'S', ejectedSince: 'E' })), null);
});

test('replaceStuckReason: only once liveness.replaceAfter has passed since the replica got stuck', () => {
  const since = '2026-11-29T08:00:00Z';
  const t = Date.parse(since);
  const m = model('m', { liveness: { consecutiveErrors: 5, stallAfterMs: 60_000, ejectForMs: 30_000, replaceAfterMs: 10_000 } });
  assert.is(replaceStuckReason(rep({ stalledSince: since }), m, t + 9_999), null);
  assert.is(replaceStuckReason(rep({ stalledSince: since }), m, t + 10_000), `stalled since ${since}`);
  assert.is(replaceStuckReason(rep({ ejectedSince: since }), m, t + 10_000), `ejected by every router since ${since}`);
  assert.is(replaceStuckReason(rep({}), m, t + 10_000_000), null, 'not stuck');
  assert.is(replaceStuckReason(rep({ stalledSince: 'not a time' }), m, t + 10_000_000), null, 'an unreadable since');
  // Without liveness in the model: the built-in replaceAfter, 2 minutes.
  const d = model('m');
  assert.is(replaceStuckReason(rep({ stalledSince: since }), d, t + 119_999), null);
  assert.is(replaceStuckReason(rep({ stalledSince: since }), d, t + 120_000), `stalled since ${since}`);
});

test('isStuckReason knows exactly the two reasons replaceStuckReason gives', () => {
  assert.is(STALLED, 'stalled');
  assert.is(EJECTED, 'ejected by every router');
  assert.ok(isStuckReason('stalled since 2026-11-29T08:00:00Z'));
  assert.ok(isStuckReason('ejected by every router since 2026-11-29T08:00:00Z'));
  assert.not.ok(isStuckReason('stalled'));
  assert.not.ok(isStuckReason('ejected by every router'));
  assert.not.ok(isStuckReason('failed'));
  assert.not.ok(isStuckReason(' stalled since x'));
});

test.run();
