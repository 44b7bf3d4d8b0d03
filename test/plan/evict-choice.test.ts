// Making room (src/plan/evict.ts, docs/config.md#on-demand-models): a model with
// requests waiting that cannot be placed stops idle replicas of other models above
// their min — lowest priority first, then least recently used, only as many as it
// needs, never of a higher-priority model, never below a min, never a busy one.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { planWithEvictions, withFewer } from '../../src/plan/evict.js';
import { emptyState } from '../../src/types/state.js';
import type { Fleet, FleetReplica } from '../../src/types/fleet.js';
import type { ScaleConfig } from '../../src/types/config.js';
import { makeFleet, type FleetIn, type ReplicaSpecIn } from '../fixtures/index.js';

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
    .map((a) => `${a.replica} (${a.reason})`);

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
  assert.equal(planWithEvictions(world(4), emptyState()).evictions, []);
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
  assert.equal(planWithEvictions({ ...f, routers: [] }, emptyState()).evictions, []);
});

/**
 * The asker serving already: `serving` replicas of it on a2 (one GPU each), one more asked for and no GPU left;
 * `inflight` requests in flight to asker-0 at rt-a, none waiting. `states` overrides its replicas' states.
 */
function busyWorld(inflight: number, serving: number, states: Partial<Record<string, 'starting' | 'failed'>> = {}): Fleet {
  const ids = Array.from({ length: serving }, (_, i) => `asker-${i}`);
  const f = makeFleet({
    nodes: [
      { name: 'a1', gpus: 2 },
      { name: 'a2', gpus: serving },
    ],
    models: [
      { name: 'low', priority: 0, replicas: 2, scale: range(2) },
      { name: 'asker', priority: 5, gpus: 1, replicas: serving + 1, scale: range(serving + 1) },
    ],
    replicas: [
      { id: 'low-0', model: 'low', ranks: [{ node: 'a1', gpus: [0] }], idleSeconds: 3600, port: 8000 },
      { id: 'low-1', model: 'low', ranks: [{ node: 'a1', gpus: [1] }], idleSeconds: 4000, port: 8001 },
      ...ids.map((id, i) => ({ id, model: 'asker', ranks: [{ node: 'a2', gpus: [i] }], port: 8000 + i, ...(states[id] ? { state: states[id] } : {}) })),
    ],
  });
  return { ...f, routers: [{ name: 'rt-a', reachable: true, report: { version: 1, startedAt: f.now, lastUsed: {}, inflight: { 'asker-0': inflight } } }] };
}

test('in flight above targetInflight per serving replica is demand too, with nothing waiting', () => {
  assert.equal(stops(busyWorld(100, 1)), ['low-1 (evicted for asker)']);
  assert.equal(stops(busyWorld(32, 1)), [], 'exactly targetInflight per replica: not over it');
  assert.equal(stops(busyWorld(20, 1)), []);
  assert.equal(stops(busyWorld(40, 2)), [], '40 over 2 serving replicas is 20 each');
  assert.equal(stops(busyWorld(80, 2)), ['low-1 (evicted for asker)'], '80 over 2 is 40 each');
});

test('only running replicas serve the in flight: a starting, failed, lost or draining one of the asker does not share it', () => {
  const evicted = (f: Fleet) => planWithEvictions(f, emptyState()).evictions.map((e) => e.replica);
  assert.equal(evicted(busyWorld(40, 2, { 'asker-1': 'starting' })), ['low-1']);
  assert.equal(evicted(busyWorld(40, 2, { 'asker-1': 'failed' })), ['low-1']);
  const lost = busyWorld(40, 2);
  lost.replicaById.get('asker-1')!.lost = true;
  assert.equal(evicted(lost), ['low-1']);
  const draining = busyWorld(40, 2);
  draining.replicaById.get('asker-1')!.draining = { since: draining.now, reason: 'drain', outOfTablesAt: null };
  assert.equal(evicted(draining), ['low-1']);
});

test('in flight to a replica that serves nothing (still starting) is no demand to evict for', () => {
  assert.equal(stops(busyWorld(40, 1, { 'asker-0': 'starting' })), []);
});

test('a fixed count is never an asker by in flight: it has no targetInflight', () => {
  const f = busyWorld(1_000, 1);
  const models = f.config.models.map((m) => (m.name === 'asker' ? { ...m, scale: undefined } : m));
  assert.equal(stops({ ...f, config: { ...f.config, models } }), []);
});

test('of two equally idle replicas of the lowest priority, the first by id goes', () => {
  assert.equal(stops(world(1, { lowIdle: 3600 })), ['low-0 (evicted for asker)']);
});

test('a model of the same priority as the asker may give up an idle replica; one of higher priority never', () => {
  const f = world(3);
  const models = f.config.models.map((m) => (m.name === 'mid' ? { ...m, priority: 5 } : m));
  assert.equal(stops({ ...f, config: { ...f.config, models } }), ['low-0 (evicted for asker)', 'low-1 (evicted for asker)', 'mid-0 (evicted for asker)']);
});

test('only a running, answering replica is evicted: not a starting, unreachable, lost or draining one', () => {
  const changes: ((r: FleetReplica, f: Fleet) => void)[] = [
    (r) => (r.state = 'starting'),
    (r) => (r.unreachable = true),
    (r) => (r.lost = true),
    (r, f) => (r.draining = { since: f.now, reason: 'drain', outOfTablesAt: null }),
  ];
  for (const change of changes) {
    const f = world(1);
    change(f.replicaById.get('low-1')!, f);
    assert.ok(!stops(f).includes('low-1 (evicted for asker)'), String(change));
  }
});

test('a second asker counts the replicas the first one took against the min: one replica of low above min serves one asker only', () => {
  const f = makeFleet({
    nodes: [{ name: 'a1', gpus: 3 }],
    models: [
      { name: 'low', priority: 0, replicas: 2, scale: range(2, 1) },
      { name: 'mid', priority: 1, replicas: 1, scale: range(1) },
      { name: 'first', priority: 6, gpus: 1, replicas: 1, scale: range(1) },
      { name: 'second', priority: 5, gpus: 1, replicas: 1, scale: range(1) },
    ],
    replicas: [
      { id: 'low-0', model: 'low', ranks: [{ node: 'a1', gpus: [0] }], idleSeconds: 3600, port: 8000 },
      { id: 'low-1', model: 'low', ranks: [{ node: 'a1', gpus: [1] }], idleSeconds: 4000, port: 8001 },
      { id: 'mid-0', model: 'mid', ranks: [{ node: 'a1', gpus: [2] }], idleSeconds: 7200, port: 8002 },
    ],
  });
  const waiting = { first: { count: 1, oldest: f.now }, second: { count: 1, oldest: f.now } };
  const asked: Fleet = { ...f, routers: [{ name: 'rt-a', reachable: true, report: { version: 1, startedAt: f.now, lastUsed: {}, waiting } }] };
  assert.equal(planWithEvictions(asked, emptyState()).evictions, [
    { replica: 'low-1', model: 'low', for: 'first' },
    { replica: 'mid-0', model: 'mid', for: 'second' },
  ]);
});

test('a min counts across the candidates tried: with low at min 1, one low and then mid make room for two GPUs', () => {
  assert.equal(stops(world(2, { lowMin: 1 })), ['low-1 (evicted for asker)', 'mid-0 (evicted for asker)']);
});

/** The asker (one GPU, priority 5) waits; `replicas` and `models` besides it on one node of `gpus` GPUs. */
function askerWorld(gpus: number, models: FleetIn['models'], replicas: FleetIn['replicas'], askerOver: Partial<FleetIn['models'][number]> = {}): Fleet {
  const f = makeFleet({
    nodes: [{ name: 'a1', gpus }],
    models: [...models, { name: 'asker', priority: 5, gpus: 1, replicas: 1, scale: range(1), ...askerOver }],
    replicas,
  });
  const waiting = { asker: { count: 3, oldest: f.now } };
  return { ...f, routers: [{ name: 'rt-a', reachable: true, report: { version: 1, startedAt: f.now, lastUsed: {}, waiting } }] };
}

test('priority before idleness: a higher-priority replica idle longer and first by id is not the one that goes', () => {
  const f = askerWorld(
    2,
    [
      { name: 'hi', priority: 1, replicas: 1, scale: range(1) },
      { name: 'lo', priority: 0, replicas: 1, scale: range(1) },
    ],
    [
      { id: 'hi-0', model: 'hi', ranks: [{ node: 'a1', gpus: [0] }], idleSeconds: 7200, port: 8000 },
      { id: 'lo-0', model: 'lo', ranks: [{ node: 'a1', gpus: [1] }], idleSeconds: 3600, port: 8001 },
    ],
  );
  assert.equal(stops(f), ['lo-0 (evicted for asker)']);
});

test('only the victims the placement needs stay: a replica on a class the asker cannot use is tried, then let go', () => {
  const f = makeFleet({
    nodes: [
      { name: 'a1', gpus: 1, cls: 'A100' },
      { name: 'h1', gpus: 1, cls: 'H100' },
    ],
    models: [
      { name: 'low', priority: 0, replicas: 2, scale: range(2) },
      { name: 'asker', priority: 5, gpus: 1, replicas: 1, scale: range(1), gpuClass: 'H100' },
    ],
    replicas: [
      { id: 'low-0', model: 'low', ranks: [{ node: 'a1', gpus: [0] }], idleSeconds: 7200, port: 8000 },
      { id: 'low-1', model: 'low', ranks: [{ node: 'h1', gpus: [0] }], idleSeconds: 3600, port: 8000 },
    ],
  });
  const waiting = { asker: { count: 1, oldest: f.now } };
  const asked: Fleet = { ...f, routers: [{ name: 'rt-a', reachable: true, report: { version: 1, startedAt: f.now, lastUsed: {}, waiting } }] };
  assert.equal(planWithEvictions(asked, emptyState()).evictions, [{ replica: 'low-1', model: 'low', for: 'asker' }]);
  assert.equal(stops(asked), ['low-1 (evicted for asker)']);
});

test('the asker never evicts its own replica, and a replica of a model gone from models.yaml is no candidate', () => {
  const own = askerWorld(1, [], [{ id: 'asker-0', model: 'asker', ranks: [{ node: 'a1', gpus: [0] }], idleSeconds: 7200, port: 8000 }], {
    replicas: 2,
    scale: range(2),
  });
  assert.equal(planWithEvictions(own, emptyState()).evictions, []);
  const orphan = askerWorld(
    2,
    [{ name: 'low', priority: 0, replicas: 1, scale: range(1) }],
    [
      { id: 'gone-0', model: 'gone', ranks: [{ node: 'a1', gpus: [0] }], idleSeconds: 7200, port: 8000 },
      { id: 'low-0', model: 'low', ranks: [{ node: 'a1', gpus: [1] }], idleSeconds: 3600, port: 8001 },
    ],
    { gpus: 2 },
  );
  assert.equal(planWithEvictions(orphan, emptyState()).evictions, [{ replica: 'low-0', model: 'low', for: 'asker' }]);
});

test('stops decided before (a yield) are in the plan even when nobody asks for room', () => {
  const given = new Map([['low-1', 'yielded to Slurm job 41']]);
  // As the tick hands it in: the yielded replica's model one fewer (src/tick/plan.ts).
  const f = withFewer(world(1), [world(1).replicaById.get('low-1')!]);
  const out = planWithEvictions({ ...f, routers: [] }, emptyState(), given);
  assert.equal(
    out.plan.actions.filter((a) => a.op === 'stop').map((a) => `${a.replica} (${a.reason})`),
    ['low-1 (yielded to Slurm job 41)'],
  );
  assert.equal(out.evictions, []);
});

test("a yield's GPUs are the Slurm job's in every trial too: the asker gets the next idle replica's, not the yielded one's", () => {
  const given = new Map([['low-1', 'yielded to Slurm job 41']]);
  const f = withFewer(world(1), [world(1).replicaById.get('low-1')!]);
  const out = planWithEvictions(f, emptyState(), given);
  assert.equal(out.evictions, [{ replica: 'low-0', model: 'low', for: 'asker' }]);
  assert.equal(
    out.plan.actions.map((a) => `${a.op} ${a.replica} ${a.op === 'start' ? a.placement.map((p) => `${p.node}[${p.gpus.join(',')}]`).join(' ') : a.reason}`),
    ['stop low-0 evicted for asker', 'stop low-1 yielded to Slurm job 41', 'start asker-0 a1[0]'],
  );
});

test('one asker tries at most 64 candidates: the 65th, though it would make room, is never reached', () => {
  const nodes: FleetIn['nodes'] = [...Array.from({ length: 8 }, (_, i) => ({ name: `a${i}`, cls: 'A100' })), { name: 'h1', gpus: 1, cls: 'H100' }];
  // Idle low replicas on the A100 nodes, all idler than low-64 on the one H100 GPU the asker may use.
  const all: ReplicaSpecIn[] = Array.from({ length: 65 }, (_, i) => ({
    id: `low-${i}`,
    model: 'low',
    ranks: [i < 64 ? { node: `a${Math.floor(i / 8)}`, gpus: [i % 8] } : { node: 'h1', gpus: [0] }],
    idleSeconds: i < 64 ? 7200 : 3600,
    port: 8000 + (i % 8),
  }));
  const asking = (replicas: ReplicaSpecIn[]): Fleet => {
    const f = makeFleet({
      nodes,
      replicas,
      models: [
        { name: 'low', priority: 0, replicas: replicas.length, scale: range(replicas.length) },
        { name: 'asker', priority: 5, gpus: 1, replicas: 1, scale: range(1), gpuClass: 'H100' },
      ],
    });
    const waiting = { asker: { count: 1, oldest: f.now } };
    return { ...f, routers: [{ name: 'rt-a', reachable: true, report: { version: 1, startedAt: f.now, lastUsed: {}, waiting } }] };
  };
  assert.equal(planWithEvictions(asking(all), emptyState()).evictions, []);
  // With one A100 replica fewer, low-64 is the 64th candidate: it goes.
  assert.equal(planWithEvictions(asking(all.slice(1)), emptyState()).evictions, [{ replica: 'low-64', model: 'low', for: 'asker' }]);
});

test.run();
