// A ranged model in the status (src/status/scale-rows.ts, docs/status.md): asleep
// at 0 with nothing waiting, waking with requests waiting and nothing running,
// awake otherwise; the Desired cell `min–max (now n)`; the last decision's line.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { desiredText, lastScaleText, withScale } from '../../src/status/scale-rows.js';
import type { ModelRow } from '../../src/status/types.js';
import type { Fleet } from '../../src/types/fleet.js';
import { makeFleet } from '../fixtures/index.js';

const scale = { min: 0, max: 2, targetInflight: 32 };

function fleet(waiting: number): Fleet {
  const f = makeFleet({
    nodes: [{ name: 'a1' }],
    models: [
      { name: 'od', replicas: 0, scale },
      { name: 'fixed', replicas: 1 },
    ],
  });
  const w: Record<string, { count: number; oldest: string }> = waiting > 0 ? { od: { count: waiting, oldest: f.now } } : {};
  return { ...f, routers: [{ name: 'rt-a', reachable: true, report: { version: 1, startedAt: f.now, lastUsed: {}, waiting: w } }] };
}

const row = (over: Partial<ModelRow>): ModelRow => ({ name: 'od', desired: 0, running: 0, starting: 0, failed: 0, ...over });
const last = { at: '2026-12-01T12:00:00Z', from: 0, to: 1, reason: '12 waiting at rt-a' };

test('at 0 with nothing waiting: asleep; a fixed-count model has no scale', () => {
  const [od, fixed] = withScale(fleet(0), [row({}), row({ name: 'fixed', desired: 1 })], undefined);
  assert.equal(od?.scale, { min: 0, max: 2, state: 'asleep', waiting: 0, last: null });
  assert.is(fixed?.scale, undefined);
  assert.is(desiredText(od!), '0–2 (now 0, asleep)');
  assert.is(lastScaleText(od!), 'od: asleep (0–2)');
});

test('requests waiting and a replica starting: waking, with the last decision', () => {
  const [od] = withScale(fleet(12), [row({ desired: 1, starting: 1 })], { od: { count: 1, last } });
  assert.is(od?.scale?.state, 'waking');
  assert.is(desiredText(od!), '0–2 (now 1, waking)');
  assert.is(lastScaleText(od!), 'od: waking (12 waiting); last scaled 0→1 at 2026-12-01T12:00:00Z (12 waiting at rt-a)');
});

test('running: awake, the cell is the range and the count', () => {
  const [od] = withScale(fleet(0), [row({ desired: 1, running: 1 })], { od: { count: 1, last } });
  assert.is(desiredText(od!), '0–2 (now 1)');
  assert.is(lastScaleText(od!), 'od: scaled 0→1 at 2026-12-01T12:00:00Z (12 waiting at rt-a)');
});

test.run();
