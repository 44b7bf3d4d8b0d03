// What judges a canary (docs/safety.md#rollouts): the routers' served counters,
// summed over the canaries per router, and what they served since the hold began.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { servedOf, servedSince } from '../../src/plan/rollout.js';
import type { RouterObservation } from '../../src/types/snapshot.js';
import { lcConfig, model, planned, router, snap } from './lifecycle-fixture.js';

const c = lcConfig([model('m', { replicas: 1 })], { routers: ['rt-1', 'rt-2'] });
const fleetWith = (routers: RouterObservation[]) => planned(c, snap(c, [], routers)).fleet;

test('servedOf sums, per router, the served counters of the given replicas only, with the router start time', () => {
  const fleet = fleetWith([
    router('rt-1', {
      startedAt: '2026-11-29T07:00:00Z',
      served: { 'm-4': { requests: 10, errors: 1 }, 'm-5': { requests: 5, errors: 2 }, 'm-0': { requests: 900, errors: 90 } },
    }),
    router('rt-2', { served: { 'm-5': { requests: 7, errors: 0 } } }),
  ]);
  assert.equal(servedOf(fleet, ['m-4', 'm-5']), {
    'rt-1': { startedAt: '2026-11-29T07:00:00Z', requests: 15, errors: 3 },
    // m-4 unknown to rt-2: it counts as nothing served there.
    'rt-2': { startedAt: '2026-11-28T00:00:00Z', requests: 7, errors: 0 },
  });
});

test('servedOf is null unless every configured router answered with served counters', () => {
  const ok = router('rt-1', { served: { 'm-4': { requests: 10, errors: 1 } } });
  assert.is(servedOf(fleetWith([ok]), ['m-4']), null, 'rt-2 missing from the snapshot');
  assert.is(servedOf(fleetWith([ok, { name: 'rt-2', reachable: false, error: 'connect ECONNREFUSED' }]), ['m-4']), null, 'rt-2 unreachable');
  const old = router('rt-2');
  delete (old as { report: { served?: unknown } }).report.served;
  assert.is(servedOf(fleetWith([ok, old]), ['m-4']), null, 'rt-2 without served counters');
  assert.equal(servedOf(fleetWith([ok, router('rt-2')]), ['m-4']), {
    'rt-1': { startedAt: '2026-11-28T00:00:00Z', requests: 10, errors: 1 },
    'rt-2': { startedAt: '2026-11-28T00:00:00Z', requests: 0, errors: 0 },
  });
});

test('servedSince counts requests and errors since the baseline; a restarted or new router counts from its start; never below zero', () => {
  const baseline = {
    same: { startedAt: 'T1', requests: 100, errors: 10 },
    restarted: { startedAt: 'T1', requests: 500, errors: 50 },
    reset: { startedAt: 'T1', requests: 80, errors: 9 },
  };
  const now = {
    same: { startedAt: 'T1', requests: 130, errors: 13 },
    restarted: { startedAt: 'T2', requests: 20, errors: 2 },
    fresh: { startedAt: 'T2', requests: 4, errors: 1 },
    reset: { startedAt: 'T1', requests: 70, errors: 5 },
  };
  assert.equal(servedSince(baseline, now), { requests: 30 + 20 + 4, errors: 3 + 2 + 1 });
});

test.run();
