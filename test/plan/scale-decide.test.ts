// The scaling decision of one ranged model (src/plan/scale.ts, docs/config.md#on-demand-models):
// up when demand per routable replica exceeds targetInflight, at most doubling;
// 0 with anything waiting -> 1 at once; down by one after scaleDownAfter of
// idleness, never within scaleDownAfter of the last scale-up; always within the range.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decideCount, decideScale, decisionText, demandOf, demandText, type Demand, type ScaleInput } from '../../src/plan/scale.js';
import { MODEL_LIFECYCLE_DEFAULTS, type ModelConfig, type ScaleConfig } from '../../src/types/config.js';
import type { Fleet, FleetReplica } from '../../src/types/fleet.js';
import type { RouterObservation, RouterUsage } from '../../src/types/snapshot.js';
import { emptyState } from '../../src/types/state.js';
import { NOW as FIXTURE_NOW, makeFleet, oneRank } from '../fixtures/index.js';

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

test('of equally idle replicas the first by id is the one the scale-down names', () => {
  const d = decide({ record: { count: 2 }, replicas: [replica('qwen-1', 3600), replica('qwen-0', 3600)] });
  assert.equal(d, { from: 2, count: 1, reason: 'qwen-0 idle 1h', up: false });
});

test('a count no replica fills and nothing asks for goes down by one: it would wait for GPUs forever', () => {
  assert.equal(decide({ record: { count: 2 }, replicas: [replica('qwen-0', 5)] }), { from: 2, count: 1, reason: 'no demand, not placed', up: false });
  assert.equal(decide({ record: { count: 2 }, replicas: [replica('qwen-0', 5)], demand: demand(3) }).count, 2, 'in flight is demand');
  assert.equal(decide({ record: { count: 1 }, replicas: [replica('qwen-0', 5)] }).count, 1, 'filled: it stays');
});

// Over a fleet (decideScale, demandOf): the routers' demand, state.json's record, the config the plan reads.
const RANGE: ScaleConfig = { min: 0, max: 4, targetInflight: 32, scaleDownAfterMs: 600_000 };
const usage = (over: Partial<RouterUsage>): RouterUsage => ({ version: 1, startedAt: FIXTURE_NOW, lastUsed: {}, ...over });

function scaledFleet(routers: RouterObservation[]): Fleet {
  const f = makeFleet({
    nodes: [{ name: 'a1' }],
    models: [
      { name: 'qwen', replicas: 1, scale: RANGE },
      { name: 'fixed', replicas: 1 },
      { name: 'empty', replicas: 0, scale: RANGE },
    ],
    replicas: [oneRank('qwen-0', 'a1', [0], { idleSeconds: 0 }), oneRank('fixed-0', 'a1', [1], { port: 8001 })],
  });
  return { ...f, routers };
}

test('demand sums in flight to a model`s replicas over the routers that answer, and lists waiting per router by name', () => {
  const f = scaledFleet([
    {
      name: 'rt-b',
      reachable: true,
      report: usage({ inflight: { 'qwen-0': 5, 'fixed-0': 0, 'gone-0': 9 }, waiting: { qwen: { count: 3, oldest: FIXTURE_NOW } } }),
    },
    {
      name: 'rt-a',
      reachable: true,
      report: usage({ inflight: { 'qwen-0': 2 }, waiting: { qwen: { count: 1, oldest: FIXTURE_NOW }, fixed: { count: 0, oldest: FIXTURE_NOW } } }),
    },
    { name: 'rt-c', reachable: false, error: 'refused' },
  ]);
  const d = demandOf(f);
  assert.equal([...d.keys()], ['qwen'], 'nothing for a model with 0 in flight and 0 waiting, nor for a replica no longer in the fleet');
  assert.equal(d.get('qwen'), {
    inflight: 7,
    waiting: 4,
    waitingAt: [
      ['rt-a', 1],
      ['rt-b', 3],
    ],
  });
  assert.is(demandText(d.get('qwen')!), '7 in flight, 1 waiting at rt-a, 3 at rt-b');
});

test('decideScale: a scale-up is recorded with its time and decision, and the config reads the new count; a fixed count is left alone', () => {
  const f = scaledFleet([{ name: 'rt-a', reachable: true, report: usage({ inflight: { 'qwen-0': 100 } }) }]);
  const out = decideScale(f, { ...emptyState(), scaling: { qwen: { count: 1 } } });
  const last = { at: f.now, from: 1, to: 2, reason: '100 in flight; over 32 per replica' };
  assert.equal(out.decisions, [{ model: 'qwen', ...last }]);
  assert.equal(out.scaling, { qwen: { count: 2, lastUpAt: f.now, last }, empty: { count: 0 } });
  assert.equal(
    out.config.models.map((m) => [m.name, m.replicas]),
    [
      ['qwen', 2],
      ['fixed', 1],
      ['empty', 0],
    ],
  );
  assert.is(decisionText(out.decisions[0]!), 'scale qwen 1→2 (100 in flight; over 32 per replica)');
});

test('decideScale: a scale-down keeps the last scale-up`s time; an unchanged count keeps its record; without a record the count is what runs', () => {
  const f = scaledFleet([]);
  const idle = { ...f, replicas: f.replicas.map((r) => (r.id === 'qwen-0' ? { ...r, idleSeconds: 3600 } : r)) };
  const before = { count: 1, lastUpAt: '2026-11-29T06:00:00Z', last: { at: '2026-11-29T06:00:00Z', from: 0, to: 1, reason: '1 waiting at rt-a' } };
  const down = decideScale(idle, { ...emptyState(), scaling: { qwen: before } });
  assert.equal(down.scaling?.qwen, { count: 0, lastUpAt: before.lastUpAt, last: { at: f.now, from: 1, to: 0, reason: 'qwen-0 idle 1h' } });
  const noUp = decideScale(idle, { ...emptyState(), scaling: { qwen: { count: 1 } } });
  assert.equal(noUp.scaling?.qwen, { count: 0, last: { at: f.now, from: 1, to: 0, reason: 'qwen-0 idle 1h' } }, 'never scaled up: no lastUpAt');
  assert.equal(decideScale(idle, emptyState()).scaling?.qwen, noUp.scaling?.qwen, 'no record yet: the count that runs goes down the same');
  const kept = decideScale(f, { ...emptyState(), scaling: { qwen: before } });
  assert.equal(kept.scaling?.qwen, before);
  assert.equal(kept.decisions, []);
  assert.equal(decideScale(f, emptyState()).scaling, { qwen: { count: 1 }, empty: { count: 0 } });
});

test('decideScale: a range moved under a recorded count clamps it, and that is a decision too', () => {
  const f = scaledFleet([{ name: 'rt-a', reachable: true, report: usage({ inflight: { 'qwen-0': 5 } }) }]);
  const out = decideScale(f, { ...emptyState(), scaling: { qwen: { count: 6 } } });
  assert.equal(out.decisions, [{ model: 'qwen', at: FIXTURE_NOW, from: 6, to: 4, reason: 'range 0–4' }]);
  assert.is(out.config.models[0]?.replicas, 4);
});

test('decideScale: without a ranged model there is nothing to record', () => {
  const f = makeFleet({ nodes: [{ name: 'a1' }], models: [{ name: 'fixed', replicas: 1 }] });
  const out = decideScale(f, emptyState());
  assert.is(out.scaling, undefined);
  assert.is(out.config, f.config);
});

test.run();
