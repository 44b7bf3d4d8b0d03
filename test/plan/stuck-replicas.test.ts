// docs/placement.md#stalled-and-ejected-replicas: a replica stalled, or ejected by every
// router that routes it, for longer than liveness.replaceAfter is replaced — surge
// first, then stopped without a drain; within replaceAfter, or ejected by one router
// of two, it stays.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildFleet } from '../../src/fleet/index.js';
import { planFleet } from '../../src/plan/plan-fleet.js';
import type { RouterObservation } from '../../src/types/snapshot.js';
import { emptyState } from '../../src/types/state.js';
import { NOW_MS, config, gpus, model, nodeConfig, replica, report, snapshot, up } from '../fixtures/index.js';

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const NOW = iso(NOW_MS);

function routerWith(name: string, ejected: Record<string, string>): RouterObservation {
  return {
    name,
    reachable: true,
    report: {
      version: 1,
      startedAt: '2026-11-28T00:00:00Z',
      lastUsed: {},
      ejected: Object.fromEntries(
        Object.entries(ejected).map(([id, since]) => [id, { since, until: iso(NOW_MS + 30_000), reason: 'stalled' as const, count: 1 }]),
      ),
    },
  };
}

function planOf(opts: { stalledSince?: string; routers?: RouterObservation[]; replaceAfterMs?: number }) {
  const liveness = { consecutiveErrors: 5, stallAfterMs: 60_000, ejectForMs: 30_000, replaceAfterMs: opts.replaceAfterMs ?? 120_000 };
  const c = config([nodeConfig('n1'), nodeConfig('n2')], {}, [model('m', { gpus: 2, replicas: 1, liveness })]);
  const load = { running: 3, waiting: 0, progress: 10, ...(opts.stalledSince ? { stalledSince: opts.stalledSince } : {}) };
  const snap = snapshot([up('n1', report(gpus(2), [replica('m-0', [0, 1], { load })])), up('n2', report(gpus(2)))], opts.routers ?? []);
  const fleet = buildFleet(c, snap, emptyState(), NOW);
  return { fleet, plan: planFleet(fleet, emptyState()) };
}

test('stalled for longer than replaceAfter: a replacement starts elsewhere and the stalled one stops without a drain', () => {
  const since = iso(NOW_MS - 121_000);
  const { fleet, plan } = planOf({ stalledSince: since });
  assert.is(fleet.replicaById.get('m-0')!.stalledSince, since);
  const starts = plan.actions.flatMap((a) => (a.op === 'start' ? [a] : []));
  const stops = plan.actions.flatMap((a) => (a.op === 'stop' ? [a] : []));
  assert.equal(
    starts.map((s) => s.placement),
    [[{ node: 'n2', gpus: [0, 1] }]],
  );
  assert.equal(
    stops.map((s) => [s.replica, s.reason, s.phase, s.waitFor]),
    [['m-0', `stalled since ${since}`, 'stop', [starts[0]!.replica]]],
  );
});

test('stalled for less than replaceAfter: nothing changes', () => {
  assert.equal(planOf({ stalledSince: iso(NOW_MS - 119_000) }).plan.actions, []);
});

test('ejected by every router past replaceAfter is replaced; ejected by one of two stays', () => {
  const since = iso(NOW_MS - 200_000);
  const all = planOf({ routers: [routerWith('r1', { 'm-0': since }), routerWith('r2', { 'm-0': iso(NOW_MS - 150_000) })] });
  assert.is(all.fleet.replicaById.get('m-0')!.ejectedSince, iso(NOW_MS - 150_000), 'the latest of the runs: when the last router took it out');
  assert.equal(
    all.plan.actions.filter((a) => a.op === 'stop').map((a) => a.reason),
    [`ejected by every router since ${iso(NOW_MS - 150_000)}`],
  );
  const one = planOf({ routers: [routerWith('r1', { 'm-0': since }), routerWith('r2', {})] });
  assert.is(one.fleet.replicaById.get('m-0')!.ejectedSince, undefined);
  assert.equal(one.plan.actions, []);
});

test('stalled with no room for a surge: stopped at once, so its GPUs are room next tick', () => {
  const since = iso(NOW_MS - 300_000);
  const c = config([nodeConfig('n1')], {}, [model('m', { gpus: 2, replicas: 1 })]);
  const snap = snapshot([up('n1', report(gpus(2), [replica('m-0', [0, 1], { load: { running: 1, waiting: 0, progress: 1, stalledSince: since } })]))]);
  const plan = planFleet(buildFleet(c, snap, emptyState(), NOW), emptyState());
  assert.equal(
    plan.actions.map((a) => [a.op, a.op === 'stop' ? a.phase : null]),
    [['stop', 'stop']],
  );
});

test.run();
