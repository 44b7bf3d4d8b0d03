// How the fleet model is put together from reports (src/fleet/build-fleet.ts,
// replicas.ts, duplicates.ts, gpus.ts, counts.ts, node-condition.ts): the
// placements of record and the models' node counts decide duplicates, defaults
// hold when a caller (the planner's projection) gives less, and hostile or odd
// numbers from a node count as nothing.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { assembleFleet, buildFleet } from '../../src/fleet/build-fleet.js';
import { countedState } from '../../src/fleet/index.js';
import { freeWholeClassOf, fleetGpus } from '../../src/fleet/gpus.js';
import { observedCondition } from '../../src/fleet/node-condition.js';
import { mergeReplicas, type ReportedNode } from '../../src/fleet/replicas.js';
import type { FleetGpu, FleetReplica } from '../../src/types/fleet.js';
import type { AgentReport } from '../../src/types/snapshot.js';
import { emptyState, type PlacementRecord, type State } from '../../src/types/state.js';
import { NOW, config, foreignGpu, gpus, model, nodeConfig, replica, report, snapshot, up } from '../fixtures/index.js';

const running = (ranks: [string, number][]): PlacementRecord => ({
  model: 'm',
  state: 'running',
  ranks: ranks.map(([node, rank]) => ({ node, rank, gpus: [0] })),
});
const withPlacements = (placements: State['placements']): State => ({ ...emptyState(), placements });
const four = ['a', 'b', 'c', 'd'].map((n) => nodeConfig(n));

test('buildFleet: the copy that stays is the one of record (state.json), though the other would be preferred by name', () => {
  const c = config(four, {}, [model('m')]);
  const snap = snapshot([up('a', report(gpus(1), [replica('m-0', [0])])), up('b', report(gpus(1), [replica('m-0', [0])]))]);
  const f = buildFleet(c, snap, withPlacements({ 'm-0': running([['b', 0]]) }), NOW);
  assert.equal(f.replicaById.get('m-0')!.nodes, ['b']);
  assert.equal(
    f.duplicates!.map((d) => [d.replica, d.nodes, d.recordNodes]),
    [['m-0', ['a'], ['b']]],
  );
  assert.equal(f.records, { 'm-0': running([['b', 0]]) });
  // Without a record, the node first by name stays.
  assert.equal(buildFleet(c, snap, emptyState(), NOW).replicaById.get('m-0')!.nodes, ['a']);
});

test("buildFleet: more ranks than models.yaml's nodes, against a record of that many, is a duplicate rank (the model's nodes are looked up)", () => {
  const c = config(four, {}, [model('m', { nodes: 2 })]);
  const snap = snapshot([
    up('a', report(gpus(1), [replica('m-0', [0], { rank: 0 })])),
    up('b', report(gpus(1), [replica('m-0', [0], { rank: 1 })])),
    up('c', report(gpus(1), [replica('m-0', [0], { rank: 2 })])),
  ]);
  const f = buildFleet(
    c,
    snap,
    withPlacements({
      'm-0': running([
        ['a', 0],
        ['b', 1],
      ]),
    }),
    NOW,
  );
  assert.equal(f.replicaById.get('m-0')!.nodes, ['a', 'b']);
  assert.equal(
    f.duplicates!.map((d) => d.nodes),
    [['c']],
  );
});

test("records over reports: a rank reported on a node other than the record's is a duplicate, even when nothing collides", () => {
  // Two ranks, nodes 2: the record says b holds rank 1, c reports it. llmgw never moves a rank: c's copy is not the replica.
  const c2 = config(four, {}, [model('m', { nodes: 2 })]);
  const snap2 = snapshot([up('a', report(gpus(1), [replica('m-0', [0], { rank: 0 })])), up('c', report(gpus(1), [replica('m-0', [0], { rank: 1 })]))]);
  const f2 = buildFleet(
    c2,
    snap2,
    withPlacements({
      'm-0': running([
        ['a', 0],
        ['b', 1],
      ]),
    }),
    NOW,
  );
  assert.equal([f2.replicaById.get('m-0')!.nodes, f2.duplicates!.map((d) => [d.nodes, d.recordNodes])], [['a'], [[['c'], ['a']]]]);
  // Three ranks against a record of three, one of them where the record does not say: that one is the duplicate.
  const snap3 = snapshot([
    up('a', report(gpus(1), [replica('m-0', [0], { rank: 0 })])),
    up('b', report(gpus(1), [replica('m-0', [0], { rank: 1 })])),
    up('c', report(gpus(1), [replica('m-0', [0], { rank: 2 })])),
  ]);
  const f3 = buildFleet(
    c2,
    snap3,
    withPlacements({
      'm-0': running([
        ['a', 0],
        ['d', 1],
        ['c', 2],
      ]),
    }),
    NOW,
  );
  assert.equal([f3.replicaById.get('m-0')!.nodes, f3.duplicates!.map((d) => d.nodes)], [['a', 'c'], [['b']]]);
});

test('splitting copies: without a record, a copy that says when it started beats one that does not, whatever the names', () => {
  const c = config(four, {}, [model('m')]);
  const f = buildFleet(
    c,
    snapshot([
      up('a', report(gpus(1), [replica('m-0', [0], { startedAt: undefined })])),
      up('b', report(gpus(1), [replica('m-0', [0], { startedAt: '2026-11-29T07:00:00Z' })])),
    ]),
    emptyState(),
    NOW,
  );
  assert.equal(f.replicaById.get('m-0')!.nodes, ['b']);
  // And the other way round: the first node by name started, the second did not say.
  const g = buildFleet(
    c,
    snapshot([
      up('a', report(gpus(1), [replica('m-0', [0], { startedAt: '2026-11-29T07:00:00Z' })])),
      up('b', report(gpus(1), [replica('m-0', [0], { startedAt: undefined })])),
    ]),
    emptyState(),
    NOW,
  );
  assert.equal(g.replicaById.get('m-0')!.nodes, ['a']);
});

test("a duplicate's ranks are in rank order, each rank's GPUs sorted by index", () => {
  const c = config(four, {}, [model('m', { nodes: 2 })]);
  const f = buildFleet(
    c,
    snapshot([
      up('a', report(gpus(4), [replica('m-0', [0], { rank: 0 })])),
      up('b', report(gpus(4), [replica('m-0', [0], { rank: 1 })])),
      up('c', report(gpus(4), [replica('m-0', [3, 1, 2], { rank: 1 })])),
      up('d', report(gpus(4), [replica('m-0', [2, 0], { rank: 0 })])),
    ]),
    withPlacements({
      'm-0': running([
        ['a', 0],
        ['b', 1],
      ]),
    }),
    NOW,
  );
  assert.equal(f.duplicates, [
    {
      replica: 'm-0',
      model: 'm',
      ranks: [
        { node: 'd', rank: 0, gpus: [0, 2] },
        { node: 'c', rank: 1, gpus: [1, 2, 3] },
      ],
      nodes: ['d', 'c'],
      recordNodes: ['a', 'b'],
    },
  ]);
});

test('mergeReplicas without options: no record, no model sizes; copies split by preference alone', () => {
  const rep = (node: string, r: AgentReport): ReportedNode => ({ name: node, condition: 'reachable', report: r });
  const { replicas, duplicates } = mergeReplicas([rep('a', report(gpus(1), [replica('m-0', [0])])), rep('b', report(gpus(1), [replica('m-0', [0])]))]);
  assert.equal(
    replicas.map((r) => [r.id, r.nodes]),
    [['m-0', ['a']]],
  );
  assert.equal(
    duplicates.map((d) => d.nodes),
    [['b']],
  );
});

test("a replica's error is a failed rank's message; a running rank's stale error, or a failed rank with none, is not it", () => {
  const c = config(four, {}, [model('m', { nodes: 2 }), model('r')]);
  const f = buildFleet(
    c,
    snapshot([
      up('a', report(gpus(2), [replica('m-0', [0], { rank: 0, state: 'failed' }), replica('r-0', [1], { error: 'old news' })])),
      up('b', report(gpus(1), [replica('m-0', [0], { rank: 1, state: 'failed', error: 'CUDA out of memory' })])),
    ]),
    emptyState(),
    NOW,
  );
  assert.is(f.replicaById.get('m-0')!.error, 'CUDA out of memory');
  assert.is(f.replicaById.get('r-0')!.error, null);
});

test("assembleFleet with only the required frame (the planner's projection): no drains, no routers, records seeded from the reports", () => {
  const c = config([nodeConfig('a')], {}, [model('m')]);
  const f = buildFleet(c, snapshot([up('a', report(gpus(1), [replica('m-0', [0])]))]), emptyState(), NOW);
  const g = assembleFleet(c, f.nodes, { now: NOW, observedAt: NOW, routersAnswered: false, foreignReplicaIds: [], idle: () => null });
  assert.is(g.replicaById.get('m-0')!.draining, null);
  assert.equal(g.routers, []);
  assert.equal(Object.keys(g.records ?? {}), ['m-0']);
  assert.is(g.unrecorded, undefined);
  assert.equal(g.quarantine, {});
  // The quarantine given is the fleet's, record for record.
  const q = { 'a:0': { node: 'a', index: 0, code: 79, reason: 'Xid 79: GPU has fallen off the bus', since: NOW, until: '2026-11-30T08:00:00Z' } };
  assert.equal(
    assembleFleet(c, f.nodes, { now: NOW, observedAt: NOW, routersAnswered: false, foreignReplicaIds: [], idle: () => null, quarantine: q }).quarantine,
    q,
  );
});

test('a report that lists one replica id twice is one replica there: no duplicate copy on its own node', () => {
  const c = config([nodeConfig('a')], {}, [model('m')]);
  const f = buildFleet(c, snapshot([up('a', report(gpus(2), [replica('m-0', [0]), replica('m-0', [1])]))]), emptyState(), NOW);
  assert.equal(
    f.replicas.map((r) => [r.id, r.ranks]),
    [['m-0', [{ node: 'a', rank: 0, gpus: [0] }]]],
  );
  assert.equal(f.duplicates, []);
});

test('countedState: a draining replica counts as draining, unless it failed meanwhile (then it is stopped at once)', () => {
  const mark = { since: NOW, reason: 'surplus', outOfTablesAt: null };
  const r = (state: FleetReplica['state'], draining: FleetReplica['draining']) => ({ state, draining }) as FleetReplica;
  assert.is(countedState(r('running', mark)), 'draining');
  assert.is(countedState(r('starting', mark)), 'draining');
  assert.is(countedState(r('failed', mark)), 'failed');
  assert.is(countedState(r('running', null)), 'running');
});

test('foreign GPU processes: a negative or non-numeric count from a node counts as none; a positive one keeps the GPU', () => {
  const classOf = () => 'H100-80G';
  const notANumber = '2' as unknown as number;
  const gs = fleetGpus(report([foreignGpu(0, -3), foreignGpu(1, notANumber), foreignGpu(2, 2), foreignGpu(3, 0)]), 'reachable', false, classOf);
  assert.equal(
    gs.map((x) => [x.index, x.foreign, x.bucket]),
    [
      [0, 0, 'free'],
      [1, 0, 'free'],
      [2, 2, 'other'],
      [3, 0, 'free'],
    ],
  );
});

test("freeWholeClassOf: one GPU in someone else's hands (a foreign process) means the node is not free whole", () => {
  const gpu = (foreign: number): FleetGpu => ({ index: 0, class: 'H100-80G', name: 'H100', healthy: true, bucket: 'free', replica: null, foreign });
  assert.is(freeWholeClassOf('reachable', false, 0, [gpu(0), { ...gpu(0), index: 1 }]), 'H100-80G');
  assert.is(freeWholeClassOf('reachable', false, 0, [gpu(0), { ...gpu(1), index: 1 }]), null);
  // Each GPU is checked for a replica too, not only the node's replica count.
  assert.is(freeWholeClassOf('reachable', false, 0, [gpu(0), { ...gpu(0), index: 1, replica: 'm-0' }]), null);
});

test('an unreachable node whose observation gives no reason has reason "unknown"', () => {
  const seen = observedCondition({ name: 'a', reachable: false, error: 'boom', unreachableSince: NOW, lastReport: null }, undefined, Date.parse(NOW), 600_000);
  assert.equal([seen.condition, seen.reason, seen.error], ['unreachable', 'unknown', 'boom']);
});

test.run();
