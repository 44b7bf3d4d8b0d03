// The scaling decision of one ranged model (src/plan/scale.ts, docs/config.md#on-demand-models):
// up when demand per routable replica exceeds targetInflight, at most doubling;
// 0 with anything waiting -> 1 at once; down by one after scaleDownAfter of
// idleness, never within scaleDownAfter of the last scale-up; always within the range.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decideCount, type Demand, type ScaleInput } from '../../src/plan/scale.js';
import { MODEL_LIFECYCLE_DEFAULTS, type ModelConfig, type ScaleConfig } from '../../src/types/config.js';
import type { FleetReplica } from '../../src/types/fleet.js';

const NOW = Date.parse('2026-12-01T12:00:00Z');

function model(scale: Partial<ScaleConfig> = {}): ModelConfig & { scale: ScaleConfig } {
  return {
    name: 'qwen',
    weights: 'q',
    engine: 'vllm',
    gpus: 1,
    nodes: 1,
    replicas: 0,
    priority: 0,
    args: [],
    index: 0,
    ...MODEL_LIFECYCLE_DEFAULTS,
    scale: { min: 0, max: 4, targetInflight: 32, scaleDownAfterMs: 600_000, ...scale },
  };
}

function replica(id: string, idleSeconds: number | null, state: FleetReplica['state'] = 'running'): FleetReplica {
  return {
    id,
    model: 'qwen',
    state,
    startedAt: '2026-12-01T00:00:00Z',
    spec: null,
    port: 8000,
    endpoint: null,
    ranks: [],
    nodes: ['a1'],
    lost: false,
    unreachable: false,
    idleSeconds,
    idleSince: null,
  };
}

const demand = (inflight: number, waitingAt: [string, number][] = []): Demand => ({
  inflight,
  waiting: waitingAt.reduce((n, [, c]) => n + c, 0),
  waitingAt,
});

function decide(over: Partial<ScaleInput>) {
  return decideCount({ model: model(), replicas: [], demand: demand(0), record: undefined, idleAfterMs: 86_400_000, nowMs: NOW, ...over });
}

test('a model at 0 with requests waiting gets one replica at once, named for where they wait', () => {
  const d = decide({ record: { count: 0 }, demand: demand(0, [['rt-a', 12]]) });
  assert.equal(d, { from: 0, count: 1, reason: '12 waiting at rt-a', up: true });
});

test('20 waiting at 0 is one replica, not more: the next tick doubles if demand still says so', () => {
  const d = decide({
    record: { count: 0 },
    demand: demand(0, [
      ['rt-a', 15],
      ['rt-b', 5],
    ]),
  });
  assert.equal(d.count, 1);
  assert.equal(d.reason, '15 waiting at rt-a, 5 at rt-b');
});

test('a replica still starting is not routable: no second scale-up while the first loads', () => {
  const d = decide({
    record: { count: 1, lastUpAt: '2026-12-01T11:59:00Z' },
    replicas: [replica('qwen-0', null, 'starting')],
    demand: demand(0, [['rt-a', 500]]),
  });
  assert.equal(d, { from: 1, count: 1, reason: null, up: false });
});

test('demand over targetInflight per routable replica scales up, at most doubling per tick', () => {
  const d = decide({ record: { count: 1 }, replicas: [replica('qwen-0', 0)], demand: demand(200) });
  assert.equal(d.count, 2);
  assert.ok(d.up);
  assert.equal(d.reason, '200 in flight; over 32 per replica');
});

test('scale-up goes only as far as demand / targetInflight asks, and never past max', () => {
  const two = [replica('qwen-0', 0), replica('qwen-1', 0)];
  assert.equal(decide({ record: { count: 2 }, replicas: two, demand: demand(70) }).count, 3);
  assert.equal(decide({ model: model({ max: 3 }), record: { count: 2 }, replicas: two, demand: demand(1000) }).count, 3);
  // Exactly the target per replica is not over it.
  assert.equal(decide({ record: { count: 2 }, replicas: two, demand: demand(64) }).reason, null);
});

test('a replica idle for scaleDownAfter takes the model down by one', () => {
  const d = decide({ record: { count: 1, lastUpAt: '2026-12-01T11:00:00Z' }, replicas: [replica('qwen-0', 600)] });
  assert.equal(d, { from: 1, count: 0, reason: 'qwen-0 idle 10m', up: false });
});

test('idle for less than scaleDownAfter stays', () => {
  assert.equal(decide({ record: { count: 1 }, replicas: [replica('qwen-0', 599)] }).count, 1);
});

test('never down within scaleDownAfter of the last scale-up (no flapping)', () => {
  const d = decide({ record: { count: 2, lastUpAt: '2026-12-01T11:55:00Z' }, replicas: [replica('qwen-0', 3600), replica('qwen-1', 3600)] });
  assert.equal(d.count, 2);
});

test('down is by one per tick, and never below min', () => {
  const idle = [replica('qwen-0', 3600), replica('qwen-1', 3600), replica('qwen-2', 3600)];
  assert.equal(decide({ record: { count: 3 }, replicas: idle }).count, 2);
  assert.equal(decide({ model: model({ min: 3 }), record: { count: 3 }, replicas: idle }).count, 3);
});

test('unknown idleness never reads as idle', () => {
  assert.equal(decide({ record: { count: 1 }, replicas: [replica('qwen-0', null)] }).count, 1);
});

test('scaleDownAfter defaults to cluster.yaml idle.after', () => {
  const m = model({ scaleDownAfterMs: undefined });
  assert.equal(decide({ model: m, record: { count: 1 }, replicas: [replica('qwen-0', 3600)], idleAfterMs: 7200_000 }).count, 1);
  assert.equal(decide({ model: m, record: { count: 1 }, replicas: [replica('qwen-0', 7200)], idleAfterMs: 7200_000 }).count, 0);
});

test('a range changed under a count moves it inside, saying so; with no record the count is what runs', () => {
  const busy = [replica('qwen-0', 0), replica('qwen-1', 0)];
  assert.equal(decide({ model: model({ min: 1, max: 2 }), record: { count: 4 }, replicas: busy }), { from: 4, count: 2, reason: 'range 1–2', up: false });
  assert.equal(decide({ record: undefined, replicas: [replica('qwen-0', 0), replica('qwen-1', 0)] }), { from: 2, count: 2, reason: null, up: false });
});

test('waiting requests hold off a scale-down', () => {
  const d = decide({ record: { count: 1 }, replicas: [replica('qwen-0', 3600)], demand: demand(0, [['rt-a', 1]]) });
  assert.equal(d.count, 1);
});

test.run();
