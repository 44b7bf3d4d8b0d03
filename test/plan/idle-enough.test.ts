// Idle enough to stop without counting against service (src/plan/idle-enough.ts,
// docs/config.md#on-demand-models), the one rule eviction, yield and the
// blast-radius guard share: unused for cluster.yaml idle.after, or for the
// replica's own model's scaleDownAfter when that is shorter; unknown is never idle.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { idleEnough } from '../../src/plan/idle-enough.js';
import type { Fleet } from '../../src/types/fleet.js';
import { makeFleet, oneRank } from '../fixtures/index.js';

const HOUR = 3_600_000;

/** quick (scaleDownAfter 60 s, first in models.yaml) and fixed (no range) on a1; idle.after is an hour. */
function fleetWith(idleSeconds: Record<string, number | null>, scaleDownAfterMs = 60_000): Fleet {
  const f = makeFleet({
    nodes: [{ name: 'a1' }],
    models: [
      { name: 'quick', replicas: 1, scale: { min: 0, max: 1, targetInflight: 32, scaleDownAfterMs } },
      { name: 'fixed', replicas: 1 },
    ],
    replicas: Object.entries(idleSeconds).map(([id, s], i) => oneRank(id, 'a1', [i], { idleSeconds: s, port: 8000 + i })),
  });
  return { ...f, config: { ...f.config, cluster: { ...f.config.cluster, idleAfterMs: HOUR } } };
}

const idle = (f: Fleet, id: string) => idleEnough(f, f.replicaById.get(id)!);

test('a ranged model`s replica is idle after its own scaleDownAfter, from that moment on', () => {
  const f = fleetWith({ 'quick-0': 60 });
  assert.ok(idle(f, 'quick-0'), 'exactly scaleDownAfter');
  assert.not.ok(idle(fleetWith({ 'quick-0': 59 }), 'quick-0'));
});

test('a fixed count`s replica goes by idle.after, not by another model`s scaleDownAfter', () => {
  assert.not.ok(idle(fleetWith({ 'fixed-0': 120 }), 'fixed-0'), 'quick`s 60 s is not fixed`s');
  assert.ok(idle(fleetWith({ 'fixed-0': 3600 }), 'fixed-0'));
});

test('a scaleDownAfter longer than idle.after gives way to idle.after', () => {
  assert.ok(idle(fleetWith({ 'quick-0': 3600 }, 2 * HOUR), 'quick-0'));
  assert.not.ok(idle(fleetWith({ 'quick-0': 3599 }, 2 * HOUR), 'quick-0'));
});

test('unknown idleness is never idle; a replica of a model gone from models.yaml goes by idle.after', () => {
  assert.not.ok(idle(fleetWith({ 'quick-0': null }), 'quick-0'));
  assert.not.ok(idle(fleetWith({ 'quick-0': null }, 0), 'quick-0'), 'not even with scaleDownAfter: 0s');
  assert.ok(idle(fleetWith({ 'quick-0': 0 }, 0), 'quick-0'), 'known and 0 s: idle enough for 0s');
  const f = fleetWith({ 'gone-0': 3600, 'gone-1': 60 });
  assert.ok(idle(f, 'gone-0'));
  assert.not.ok(idle(f, 'gone-1'));
});

test.run();
