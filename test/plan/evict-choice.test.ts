// Making room (src/plan/evict.ts, docs/config.md#on-demand-models): a model with
// requests waiting that cannot be placed stops idle replicas of other models above
// their min — lowest priority first, then least recently used, only as many as it
// needs, never of a higher-priority model, never below a min, never a busy one.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { planWithEvictions } from '../../src/plan/evict.js';
import { emptyState } from '../../src/types/state.js';
import type { Fleet } from '../../src/types/fleet.js';
import type { ScaleConfig } from '../../src/types/config.js';
import { makeFleet } from '../fixtures/index.js';

const range = (max: number, min = 0): ScaleConfig => ({ min, max, targetInflight: 32, scaleDownAfterMs: 60_000 });

function world(askerGpus: number, opts: { lowMin?: number; lowIdle?: number } = {}): Fleet {
  const f = makeFleet({
    nodes: [{ name: 'a1', gpus: 4 }],
    models: [
      { name: 'low', priority: 0, replicas: 2, scale: range(2, opts.lowMin ?? 0) },
      { name: 'mid', priority: 1, replicas: 1, scale: range(1) },
      { name: 'high', priority: 10, replicas: 1, scale: range(1) },
      { name: 'asker', priority: 5, gpus: askerGpus, replicas: 1, scale: range(1) },
    ],
    replicas: [
      { id: 'low-0', model: 'low', ranks: [{ node: 'a1', gpus: [0] }], idleSeconds: 3600, port: 8000 },
      { id: 'low-1', model: 'low', ranks: [{ node: 'a1', gpus: [1] }], idleSeconds: opts.lowIdle ?? 4000, port: 8001 },
      { id: 'mid-0', model: 'mid', ranks: [{ node: 'a1', gpus: [2] }], idleSeconds: 7200, port: 8002 },
      { id: 'high-0', model: 'high', ranks: [{ node: 'a1', gpus: [3] }], idleSeconds: 99_999, port: 8003 },
    ],
  });
  const waiting = { asker: { count: 3, oldest: f.now } };
  return { ...f, routers: [{ name: 'rt-a', reachable: true, report: { version: 1, startedAt: f.now, lastUsed: {}, waiting } }] };
}

const stops = (f: Fleet) =>
  planWithEvictions(f, emptyState())
    .plan.actions.filter((a) => a.op === 'stop')
    .map((a) => `${a.replica} (${a.op === 'stop' ? a.reason : ''})`);

test('one GPU needed: only the least recently used replica of the lowest priority goes', () => {
  assert.equal(stops(world(1)), ['low-1 (evicted for asker)']);
  const out = planWithEvictions(world(1), emptyState());
  assert.equal(
    out.plan.actions.filter((a) => a.op === 'start').map((a) => a.model),
    ['asker'],
  );
  // Its model's count drops with it, or the plan would place it again.
  assert.is(out.fleet.config.models.find((m) => m.name === 'low')?.replicas, 1);
});

test('three GPUs needed: the lowest priority first, then the next; the higher-priority idle replica is untouched', () => {
  assert.equal(stops(world(3)), ['low-0 (evicted for asker)', 'low-1 (evicted for asker)', 'mid-0 (evicted for asker)']);
});

test('four GPUs would need a higher-priority replica: nothing is evicted for nothing', () => {
  assert.equal(stops(world(4)), []);
});

test("never below a model's min", () => {
  assert.equal(stops(world(1, { lowMin: 2 })), ['mid-0 (evicted for asker)']);
});

test('a replica used recently is not idle: not a candidate', () => {
  assert.equal(stops(world(1, { lowIdle: 10 })), ['low-0 (evicted for asker)']);
});

test('without anything waiting there is no asker', () => {
  const f = world(1);
  assert.equal(stops({ ...f, routers: [] }), []);
});

test.run();
