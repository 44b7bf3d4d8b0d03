// Yield (src/plan/yield.ts, docs/slurm.md#yield-yield-true): with `slurm.yield: true`,
// idle replicas above their min on nodes pending non-llmgw jobs could use are
// stopped, lowest priority first, at most the GPUs those jobs ask for; a busy
// replica never; the tick's plan carries the stops with the job ids, the
// model keeps the lower count, and the commit message names the jobs.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decideYield, yieldReason, yieldedJobs } from '../../src/plan/yield.js';
import { planTick } from '../../src/tick/plan.js';
import { decisionLines } from '../../src/tick/commit.js';
import type { Config, ScaleConfig, SlurmConfig } from '../../src/types/config.js';
import type { Fleet, FleetReplica } from '../../src/types/fleet.js';
import type { SlurmPendingNeed, SlurmView } from '../../src/types/snapshot.js';
import { emptyState } from '../../src/types/state.js';
import { NOW, NOW_MS, config, gpus, makeFleet, model, nodeConfig, replica, report, snapshot, up, vllmEngine } from '../fixtures/index.js';

const SLURM: SlurmConfig = { host: 'slurm-ctl', port: 22, mode: 'observe', yield: true, names: {}, partition: 'gpu' };
const range = (max: number, min = 0): ScaleConfig => ({ min, max, targetInflight: 32, scaleDownAfterMs: 60_000 });

function slurmView(needs: SlurmPendingNeed[], over: Partial<SlurmView> = {}): SlurmView {
  const node = (partitions: string[]) => ({ state: 'mixed', reason: '', gpusAllocated: 0, partitions });
  return {
    reachable: true,
    nodes: { a1: node(['gpu']), a2: node(['gpu']), b1: node(['other']) },
    jobs: [],
    pending: needs.reduce((n, x) => n + x.gpus, 0),
    pendingJobs: needs.map((n) => n.id),
    pendingNeeds: needs,
    partition: 'gpu',
    ...over,
  };
}

/** low (priority 0) and mid (1) ranged, fixed (5) a fixed count; every replica idle an hour unless said. */
function world(needs: SlurmPendingNeed[], opts: { lowMin?: number; busy?: string; yieldOn?: boolean; view?: Partial<SlurmView> } = {}): Fleet {
  const idleOf = (id: string) => (id === opts.busy ? 5 : 3600);
  const f = makeFleet({
    nodes: [
      { name: 'a1', gpus: 8 },
      { name: 'a2', gpus: 8 },
      { name: 'b1', gpus: 8 },
    ],
    models: [
      { name: 'low', priority: 0, gpus: 2, replicas: 3, scale: range(3, opts.lowMin ?? 0) },
      { name: 'mid', priority: 1, gpus: 4, replicas: 1, scale: range(1) },
      { name: 'fixed', priority: 5, gpus: 2, replicas: 1 },
    ],
    replicas: [
      { id: 'low-0', model: 'low', ranks: [{ node: 'a1', gpus: [0, 1] }], idleSeconds: idleOf('low-0'), port: 8000 },
      { id: 'low-1', model: 'low', ranks: [{ node: 'a1', gpus: [2, 3] }], idleSeconds: idleOf('low-1'), port: 8001 },
      { id: 'low-2', model: 'low', ranks: [{ node: 'b1', gpus: [0, 1] }], idleSeconds: idleOf('low-2'), port: 8000 },
      { id: 'mid-0', model: 'mid', ranks: [{ node: 'a1', gpus: [4, 5, 6, 7] }], idleSeconds: idleOf('mid-0'), port: 8002 },
      { id: 'fixed-0', model: 'fixed', ranks: [{ node: 'a2', gpus: [0, 1] }], idleSeconds: idleOf('fixed-0'), port: 8000 },
    ],
  });
  const slurm = { ...SLURM, yield: opts.yieldOn ?? true };
  return { ...f, config: { ...f.config, cluster: { ...f.config.cluster, slurm } }, slurm: slurmView(needs, opts.view) };
}

const brief = (f: Fleet) => decideYield(f).map((y) => `${y.replica}:${y.jobs.join(',')}`);
const job = (id: string, gpus: number, extra: Partial<SlurmPendingNeed> = {}): SlurmPendingNeed => ({ id, gpus, partitions: ['gpu'], ...extra });

test('a pending job asking 4 GPUs in the partition: the two idle lowest-priority replicas on its nodes (2+2), no more', () => {
  assert.equal(brief(world([job('41', 4)])), ['low-0:41', 'low-1:41']);
});

test('at most as many GPUs as asked: a 3-GPU job gets one 2-GPU replica (a second would exceed it), the 4-GPU one does not fit', () => {
  assert.equal(brief(world([job('41', 3)])), ['low-0:41']);
});

test('past the lowest priority when it is not enough: the next priority follows; a fixed count is never yielded', () => {
  assert.equal(brief(world([job('41', 8)])), ['low-0:41', 'low-1:41', 'mid-0:41']);
  assert.equal(brief(world([job('41', 2, { nodes: ['a2'] })])), [], 'fixed-0 on a2 is at its count: no min to be above');
});

test('only nodes the job could use: of its partitions, of its --nodelist when it has one, never of its --exclude', () => {
  assert.equal(brief(world([job('41', 2, { nodes: ['b1'] })])), [], 'b1 is not in the job`s partition: Slurm would not run it there');
  assert.equal(brief(world([job('41', 2, { partitions: ['other'] })])), ['low-2:41']);
  assert.equal(brief(world([job('41', 2, { excluded: ['a1'] })])), []);
  assert.equal(brief(world([job('41', 2, { nodes: ['a1'] })])), ['low-0:41']);
});

test('never below min; a busy replica is never yielded', () => {
  assert.equal(brief(world([job('41', 4)], { lowMin: 2 })), ['low-0:41']);
  assert.equal(brief(world([job('41', 4)], { busy: 'low-0' })), ['low-1:41'], 'low-0 served 5 s ago: busy');
  // A request in flight is use, however long ago it began.
  const f = world([job('41', 4)]);
  const inflight = {
    ...f,
    routers: [{ name: 'rt', reachable: true as const, report: { version: 1 as const, startedAt: NOW, lastUsed: {}, inflight: { 'low-0': 1 } } }],
  };
  assert.equal(brief(inflight), ['low-1:41']);
});

test('each pending job has its own budget, in Slurm`s order; a replica goes to one job only', () => {
  assert.equal(brief(world([job('41', 2), job('42', 2)])), ['low-0:41', 'low-1:42']);
});

test('GPUs an earlier tick yielded to the job and still draining count against what it asks for', () => {
  const f = world([job('41', 6)]);
  const low0 = f.replicaById.get('low-0')!;
  low0.draining = { since: NOW, reason: 'yielded to Slurm job 41', outOfTablesAt: null };
  assert.equal(brief(f), ['low-1:41'], 'low-0`s 2 GPUs are on their way: 4 more at most, so not low-1 and mid-0 (6)');
  low0.draining = { since: NOW, reason: 'yielded to Slurm job 7', outOfTablesAt: null };
  assert.equal(brief(f), ['low-1:41', 'mid-0:41'], 'another job`s drain does not count against 41');
});

test('nothing without yield: true, on a view held while Slurm does not answer, or with nothing pending', () => {
  assert.equal(brief(world([job('41', 4)], { yieldOn: false })), []);
  assert.equal(brief(world([job('41', 4)], { view: { reachable: false, unreachableSince: NOW, error: 'refused' } })), []);
  assert.equal(brief(world([])), []);
});

test('the reason names the jobs and reads back', () => {
  assert.is(yieldReason(['41']), 'yielded to Slurm job 41');
  assert.is(yieldReason(['41', '42']), 'yielded to Slurm jobs 41, 42');
  assert.equal(yieldedJobs('yielded to Slurm jobs 41, 42'), ['41', '42']);
  assert.is(yieldedJobs('evicted for qwen'), null);
});

test('a node Slurm keeps llmgw off (drained, reserved), or one Slurm does not report, is no room for the job', () => {
  const held = world([job('41', 4)]);
  const a1 = held.nodeByName.get('a1')!;
  a1.slurm = { condition: { state: 'drain', reason: 'maintenance' }, gpusAllocated: 0 };
  assert.equal(brief(held), [], 'every low replica of the partition is on a1');
  a1.slurm = { gpusAllocated: 0 };
  assert.equal(brief(held), ['low-0:41', 'low-1:41'], 'a node Slurm reports with no condition is the job`s room');
  const unknown = world([job('41', 4)], { view: { nodes: { a2: { state: 'mixed', reason: '', gpusAllocated: 0, partitions: ['gpu'] } } } });
  assert.equal(brief(unknown), []);
});

test('an unreachable router makes no replica busy', () => {
  const f = world([job('41', 4)]);
  assert.equal(brief({ ...f, routers: [{ name: 'rt', reachable: false, error: 'refused' }] }), ['low-0:41', 'low-1:41']);
});

test('only a running replica that answers is yielded: not a starting, unreachable, lost or draining one', () => {
  for (const change of [
    (r: FleetReplica) => (r.state = 'starting'),
    (r: FleetReplica) => (r.unreachable = true),
    (r: FleetReplica) => (r.lost = true),
    (r: FleetReplica) => (r.draining = { since: NOW, reason: 'drain', outOfTablesAt: null }),
  ]) {
    const f = world([job('41', 4)]);
    change(f.replicaById.get('low-0')!);
    assert.equal(brief(f), ['low-1:41'], String(change));
  }
});

test('what a model may give up is counted from the replicas present: a failed, lost or draining one is already short of its count', () => {
  for (const change of [
    (r: FleetReplica) => (r.state = 'failed'),
    (r: FleetReplica) => (r.lost = true),
    (r: FleetReplica) => (r.draining = { since: NOW, reason: 'drain', outOfTablesAt: null }),
  ]) {
    // low asks 3 with min 2: with low-2 gone, none of low is spare, and the job takes mid-0.
    const f = world([job('41', 4)], { lowMin: 2 });
    change(f.replicaById.get('low-2')!);
    assert.equal(brief(f), ['mid-0:41'], String(change));
  }
});

test('of the same priority, the replica idle longest goes first, then by id', () => {
  const f = world([job('41', 2)]);
  f.replicaById.get('low-1')!.idleSeconds = 7200;
  assert.equal(brief(f), ['low-1:41']);
  f.replicaById.get('low-0')!.idleSeconds = 7200;
  assert.equal(brief(f), ['low-0:41']);
});

test('stops are listed by replica id, whichever job they go to', () => {
  const f = world([job('42', 2, { partitions: ['other'] }), job('41', 4)]);
  assert.equal(
    decideYield(f).map((y) => [y.replica, y.model, y.gpus, y.jobs]),
    [
      ['low-0', 'low', 2, ['41']],
      ['low-1', 'low', 2, ['41']],
      ['low-2', 'low', 2, ['42']],
    ],
  );
});

test('a reason reads back as a yield only when it is one whole: not one that merely contains the words', () => {
  assert.is(yieldedJobs('drained; yielded to Slurm job 3'), null);
  assert.is(yieldedJobs('yielded to Slurm job 3 (again)'), null);
  assert.equal(yieldedJobs('yielded to Slurm job 3'), ['3']);
});

test('a job of several partitions may use a node of any one of them', () => {
  assert.equal(brief(world([job('41', 2, { partitions: ['other', 'gpu'] })])), ['low-0:41']);
});

test('priority goes before idleness and ids: a higher-priority replica idle longer, first by id, still waits for the lower one', () => {
  const f = makeFleet({
    nodes: [{ name: 'a1', gpus: 8 }],
    models: [
      { name: 'hi', priority: 1, gpus: 2, replicas: 1, scale: range(1) },
      { name: 'lo', priority: 0, gpus: 2, replicas: 1, scale: range(1) },
    ],
    replicas: [
      { id: 'hi-0', model: 'hi', ranks: [{ node: 'a1', gpus: [0, 1] }], idleSeconds: 7200, port: 8000 },
      { id: 'lo-0', model: 'lo', ranks: [{ node: 'a1', gpus: [2, 3] }], idleSeconds: 3600, port: 8001 },
    ],
  });
  const withSlurm = { ...f, config: { ...f.config, cluster: { ...f.config.cluster, slurm: SLURM } }, slurm: slurmView([job('41', 2)]) };
  assert.equal(brief(withSlurm), ['lo-0:41']);
  const idleMid = world([job('41', 4)]);
  idleMid.replicaById.get('mid-0')!.idleSeconds = 7200;
  assert.equal(brief(idleMid), ['low-0:41', 'low-1:41']);
});

test('a replica on several nodes is yielded when the job could use any of them', () => {
  const f = makeFleet({
    nodes: [
      { name: 'a1', gpus: 8 },
      { name: 'b1', gpus: 8 },
    ],
    models: [{ name: 'wide', gpus: 2, nodes: 2, replicas: 1, scale: range(1) }],
    replicas: [
      {
        id: 'wide-0',
        model: 'wide',
        ranks: [
          { node: 'a1', gpus: [0, 1] },
          { node: 'b1', gpus: [0, 1] },
        ],
        idleSeconds: 3600,
      },
    ],
  });
  const wide = { ...f, config: { ...f.config, cluster: { ...f.config.cluster, slurm: SLURM } }, slurm: slurmView([job('41', 4)]) };
  assert.equal(
    decideYield(wide).map((y) => [y.replica, y.gpus]),
    [['wide-0', 4]],
  );
});

test('without cluster.yaml `slurm:`, or with no Slurm view yet, nothing is yielded', () => {
  const f = world([job('41', 4)]);
  const { slurm: _slurm, ...cluster } = f.config.cluster;
  assert.equal(decideYield({ ...f, config: { ...f.config, cluster } }), []);
  const { slurm: _view, ...unseen } = f;
  assert.equal(decideYield(unseen), []);
});

// Through the tick's plan (the one the PR plan makes too), from a snapshot: the stop, its reason, the count kept, the commit line.
function tickConfig(yieldOn: boolean): Config {
  const c = config([nodeConfig('a1')], { engines: { vllm: vllmEngine() }, routers: [{ name: 'rt', host: 'rt', port: 22 }] }, [
    model('low', { gpus: 4, replicas: 2, scale: range(2) }),
  ]);
  return { ...c, cluster: { ...c.cluster, slurm: { ...SLURM, yield: yieldOn } } };
}

test('the tick`s plan: the idle replica stops with `yielded to Slurm job 41`, its GPUs are not placed on again, and the commit names the job', () => {
  const started = new Date(NOW_MS - 7200_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const reps = [replica('low-0', [0, 1, 2, 3], { startedAt: started }), replica('low-1', [4, 5, 6, 7], { startedAt: started })];
  const view = slurmView([job('41', 4, { nodes: ['a1'] })], { nodes: { a1: { state: 'idle', reason: '', gpusAllocated: 0, partitions: ['gpu'] } } });
  const routers = [{ name: 'rt', reachable: true as const, report: { version: 1 as const, startedAt: started, lastUsed: {} } }];
  const snap = { ...snapshot([up('a1', report(gpus(8), reps))], routers), slurm: view };
  // Scaled up 30 s ago: no scale-down this tick (scaleDownAfter 60 s), so the one stop is the yield's.
  const state = { ...emptyState(), scaling: { low: { count: 2, lastUpAt: new Date(NOW_MS - 30_000).toISOString() } } };
  const planned = planTick({ config: tickConfig(true), snapshot: snap, state, now: NOW });
  const stops = planned.plan.actions.filter((a) => a.op === 'stop');
  assert.equal(
    stops.map((a) => [a.replica, a.reason]),
    [['low-0', 'yielded to Slurm job 41']],
  );
  assert.equal(
    planned.plan.actions.filter((a) => a.op === 'start'),
    [],
    'the yielded GPUs are the job`s, not room',
  );
  assert.is(planned.plan.blocked, null, 'an idle stop is outside maxStopFraction');
  assert.is(planned.fleet.config.models[0]?.replicas, 1);
  assert.is(planned.state.scaling?.low?.count, 1, 'the count stays down, or the next tick would place it again');
  assert.equal(decisionLines(planned), ['yield low-0 to Slurm job 41 (idle 2h)']);
  // yield: false: the same snapshot stops nothing.
  const off = planTick({ config: tickConfig(false), snapshot: snap, state, now: NOW });
  assert.equal(
    off.plan.actions.filter((a) => a.op === 'stop'),
    [],
  );
});

test.run();
