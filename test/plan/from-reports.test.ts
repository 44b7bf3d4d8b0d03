// docs/placement.md rules from config + snapshot through the real fleet model and
// planner, for the distinctions a hand-built fleet cannot show: what a report
// says (no spec, mixed classes, a lost node's last report) and what the
// planner makes of it.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildFleet } from '../../src/fleet/build-fleet.js';
import { planFleet } from '../../src/plan/plan-fleet.js';
import { replicaSpec } from '../../src/plan/spec.js';
import { summarize } from '../../src/status/index.js';
import type { Config } from '../../src/types/config.js';
import type { Action, Plan } from '../../src/types/plan.js';
import type { GpuReport, Snapshot } from '../../src/types/snapshot.js';
import { emptyState } from '../../src/types/state.js';
import { NOW, config, down, gpus, model, nodeConfig, replica, report, routerUp, snapshot, stored, up } from '../fixtures/index.js';

const ALL = [0, 1, 2, 3, 4, 5, 6, 7];
const RT = { routers: [{ name: 'rt-1', host: 'rt-1', port: 22 }] };

function plan(cfg: Config, snap: Snapshot): Plan {
  return planFleet(buildFleet(cfg, snap, emptyState(), NOW), emptyState());
}
const brief = (a: Action) =>
  a.op === 'start'
    ? `start ${a.replica} ${a.placement.map((p) => `${p.node}[${p.gpus.join(',')}]`).join('+')} :${a.port} ${a.weights}`
    : `stop ${a.replica} ${a.placement.map((p) => `${p.node}[${p.gpus.join(',')}]`).join('+')} (${a.reason}) after [${a.waitFor.join(',')}]`;
const specOf = (cfg: Config, name: string) => {
  const m = cfg.models.find((x) => x.name === name)!;
  return replicaSpec(m, cfg.cluster.engines[m.engine]!);
};
const mixedGpus = (): GpuReport[] => [...gpus(4, 'NVIDIA H100 80GB HBM3'), ...gpus(4, 'NVIDIA A100-SXM4-80GB').map((g) => ({ ...g, index: g.index + 4 }))];

test('a node mixing GPU classes offers each class only its own GPUs and is a free whole node of none', () => {
  const cfg = config([nodeConfig('n1')], {}, [
    model('a5', { gpuClass: 'A100', gpus: 5 }),
    model('h', { gpuClass: 'H100', gpus: 4 }),
    model('a', { gpuClass: 'A100', gpus: 2 }),
    model('pair', { gpus: 4, nodes: 2 }),
  ]);
  const snap = snapshot([up('n1', report(mixedGpus()))]);
  const p = plan(cfg, snap);
  assert.equal(p.actions.map(brief), ['start h-0 n1[0,1,2,3] :8000 none', 'start a-0 n1[4,5] :8001 none']);
  assert.equal(p.unplaceable, [
    { model: 'pair', missing: 1, reason: 'needs 2 whole nodes in one fabric; free whole nodes: ib-a 0, ib-b 0' },
    { model: 'a5', missing: 1, reason: 'needs 5 free A100 GPUs on one node; most free on one node: ib-a 4, ib-b 0' },
  ]);
  const report_ = summarize(buildFleet(cfg, snap, emptyState(), NOW), []);
  assert.equal(report_.fabrics[0], { name: 'ib-a', nodes: 1, reachable: 1, freeWholeNodes: { A100: 0, H100: 0 } });
  assert.equal(
    report_.capacity.map((c) => [c.class, c.total, c.free]),
    [
      ['A100', 4, 4],
      ['H100', 4, 4],
    ],
  );
});

test('a replica whose report has no spec is judged by GPUs per node and node count, never rolled blindly', () => {
  const cfg = config([nodeConfig('n1'), nodeConfig('n2'), nodeConfig('n3')], {}, [model('m', { gpus: 2, replicas: 2 }), model('wide', { gpus: 4, nodes: 2 })]);
  const noSpec = { spec: undefined };
  const snap = snapshot([
    up('n1', report(gpus(8), [replica('m-0', [0, 1], noSpec), replica('m-1', [2, 3, 4], { ...noSpec, port: 8001 })])),
    up('n2', report(gpus(8), [replica('wide-0', [0, 1, 2, 3], { ...noSpec, rank: 0 })])),
    up('n3', report(gpus(8), [replica('wide-0', [0, 1, 2, 3], { ...noSpec, rank: 1 })])),
  ]);
  // m-0 has the shape of m (kept); m-1 takes 3 GPUs (replaced with surge, spread to n2 beside
  // wide-0's port); wide-0 has 2 ranks of 4 (kept).
  assert.equal(plan(cfg, snap).actions.map(brief), ['start m-2 n2[4,5] :8001 none', 'stop m-1 n1[2,3,4] (spec changed) after [m-2]']);
  const oneNode = config(cfg.cluster.nodes, {}, [model('m', { gpus: 2, replicas: 2 }), model('wide', { gpus: 4 })]);
  assert.ok(plan(oneNode, snap).actions.some((a) => a.op === 'stop' && a.replica === 'wide-0' && a.reason === 'spec changed'));
});

test('surplus through the routers: known idleness longest first, unknown counts as just used, then the highest n', () => {
  const cfg = config([nodeConfig('n1')], RT, [model('m', { replicas: 1 })]);
  const snap = snapshot(
    [
      up(
        'n1',
        report(gpus(8), [
          replica('m-0', [0], { spec: specOf(cfg, 'm'), startedAt: '2026-11-29T07:00:00Z' }),
          replica('m-1', [1], { spec: specOf(cfg, 'm'), startedAt: undefined, port: 8001 }),
          replica('m-2', [2], { spec: specOf(cfg, 'm'), startedAt: '2026-11-29T06:00:00Z', port: 8002 }),
          replica('m-3', [3], { spec: specOf(cfg, 'm'), startedAt: undefined, port: 8003 }),
        ]),
      ),
    ],
    [routerUp('rt-1', '2026-11-20T00:00:00Z')],
  );
  // m-2 unused 2h, m-0 1h; m-1 and m-3 unknown: of those the higher n goes.
  assert.equal(plan(cfg, snap).actions.map(brief), [
    'stop m-0 n1[0] (surplus (4 of 1)) after []',
    'stop m-2 n1[2] (surplus (4 of 1)) after []',
    'stop m-3 n1[3] (surplus (4 of 1)) after []',
  ]);
  // One router silent: every idleness unknown, so only the highest n decide.
  const silent = { ...snap, routers: [{ name: 'rt-1', reachable: false as const, error: 'timeout' }] };
  assert.equal(
    plan(cfg, silent).actions.map((a) => a.replica),
    ['m-1', 'm-2', 'm-3'],
  );
});

test("a failed replica is freed first: its GPUs and its port go to this plan's placements", () => {
  const cfg = config([nodeConfig('n1')], {}, [model('m', { gpus: 8 })]);
  const snap = snapshot([up('n1', report(gpus(8), [replica('m-0', ALL, { state: 'failed', spec: specOf(cfg, 'm') })]))]);
  const p = plan(cfg, snap);
  assert.equal(p.actions.map(brief), ['stop m-0 n1[0,1,2,3,4,5,6,7] (failed) after []', 'start m-1 n1[0,1,2,3,4,5,6,7] :8000 none']);
  assert.is(p.blocked, null);
});

test('multi-node through holdings: chosen holders, then a holding fabric, then fewest free whole nodes, then name', () => {
  const local = [{ path: '/models', kind: 'local' as const }];
  const names = ['a1', 'a2', 'a3', 'b1', 'b2', 'b3', 'c1', 'c2'];
  const cfg = config(
    names.map((n) => nodeConfig(n, { fabric: `ib-${n[0]}`, storage: local })),
    { fabrics: ['ib-a', 'ib-b', 'ib-c'] },
    [model('ds', { gpus: 8, nodes: 2, weights: 'org/ds', replicas: 3 }), model('small')],
  );
  const holds = (w: string[]) => [stored('/models', w)];
  const snap = snapshot(
    names.map((n) => {
      // a2 holds the weights; b3 (busy, so not a whole node) makes ib-b a holding fabric.
      if (n === 'a2') return up(n, report(gpus(8), [], holds(['org/ds'])));
      if (n === 'b3') return up(n, report(gpus(8), [replica('small-0', [0], { spec: specOf(cfg, 'small') })], holds(['org/ds'])));
      return up(n, report(gpus(8), [], holds([])));
    }),
  );
  const starts = plan(cfg, snap)
    .actions.filter((a) => a.op === 'start')
    .map(brief);
  assert.equal(starts, [
    'start ds-0 a2[0,1,2,3,4,5,6,7]+a1[0,1,2,3,4,5,6,7] :8000 fabric',
    'start ds-1 b1[0,1,2,3,4,5,6,7]+b2[0,1,2,3,4,5,6,7] :8000 fabric',
    'start ds-2 c1[0,1,2,3,4,5,6,7]+c2[0,1,2,3,4,5,6,7] :8000 none',
  ]);
});

test('replicas stopped to free capacity give back their ports: the lowest port free on every node is basePort again', () => {
  const cfg = config([nodeConfig('n1'), nodeConfig('n2')], {}, [model('m', { gpus: 4, nodes: 2 })]);
  const failed = (id: string, port: number) => replica(id, [0], { model: 'old', port, state: 'failed' });
  const snap = snapshot([up('n1', report(gpus(8), [failed('old-0', 8000)])), up('n2', report(gpus(8), [failed('old-1', 8001)]))]);
  assert.equal(plan(cfg, snap).actions.map(brief), [
    'stop old-0 n1[0] (not in models.yaml) after []',
    'stop old-1 n2[0] (not in models.yaml) after []',
    'start m-0 n1[0,1,2,3]+n2[0,1,2,3] :8000 none',
  ]);
});

test('new ids take the lowest n no replica holds, on reachable, unreachable or lost nodes', () => {
  const cfg = config([nodeConfig('n1'), nodeConfig('n2'), nodeConfig('n3')], {}, [model('m', { replicas: 4 })]);
  const s = specOf(cfg, 'm');
  const snap = snapshot([
    up('n1', report(gpus(8), [replica('m-2', [0], { spec: s })])),
    down('n2', '2026-11-29T07:58:00Z', report(gpus(8), [replica('m-0', [0], { spec: s })])),
    down('n3', '2026-11-29T07:00:00Z', report(gpus(8), [replica('m-3', [0], { spec: s })])),
  ]);
  // m-2 and m-0 (unreachable) are kept; m-3 is lost, gone, and its id stays taken.
  assert.equal(plan(cfg, snap).actions.map(brief), ['start m-1 n1[1] :8001 none', 'start m-4 n1[2] :8002 none']);
});

test('a lost rank: the ranks left on reachable nodes are stopped at once, not counted as stops, and the id stays taken', () => {
  const cfg = config([nodeConfig('n1'), nodeConfig('n2'), nodeConfig('n3')], {}, [model('big', { gpus: 8, nodes: 2 })]);
  const s = specOf(cfg, 'big');
  const snap = snapshot([
    up('n1', report(gpus(8), [replica('big-0', ALL, { spec: s, rank: 0 })])),
    down('n2', '2026-11-29T07:00:00Z', report(gpus(8), [replica('big-0', ALL, { spec: s, rank: 1 })])),
    up('n3', report(gpus(8))),
  ]);
  const p = plan({ ...cfg, cluster: { ...cfg.cluster, safety: { maxStopFraction: 0, minReachableFraction: 0.5 } } }, snap);
  assert.equal(p.actions.map(brief), ['stop big-0 n1[0,1,2,3,4,5,6,7] (node lost) after []', 'start big-1 n1[0,1,2,3,4,5,6,7]+n3[0,1,2,3,4,5,6,7] :8000 none']);
  assert.is(p.blocked, null, 'the lost replica is already gone: stopping its last rank stops nothing that serves');
});

test('changes is true exactly when there are actions: an unplaceable model alone is no change', () => {
  const cfg = config([nodeConfig('n1')], {}, [model('huge', { gpus: 16 })]);
  const p = plan(cfg, snapshot([up('n1', report(gpus(8)))]));
  assert.equal([p.changes, p.actions.length, p.unplaceable.length], [false, 0, 1]);
  const q = plan(config([nodeConfig('n1')], {}, [model('m')]), snapshot([up('n1', report(gpus(8)))]));
  assert.equal([q.changes, q.actions.length], [true, 1]);
});

test('a failed or removed replica with a rank on an unreachable node still has its reachable ranks stopped', () => {
  const cfg = config([nodeConfig('n1'), nodeConfig('n2'), nodeConfig('n3'), nodeConfig('n4')], {}, [model('big', { gpus: 8, nodes: 2 })]);
  const s = specOf(cfg, 'big');
  const snap = snapshot([
    up('n1', report(gpus(8), [replica('big-0', ALL, { spec: s, rank: 0, state: 'failed' })])),
    down(
      'n2',
      '2026-11-29T07:58:00Z',
      report(gpus(8), [replica('big-0', ALL.slice(0, 4), { spec: s, rank: 1 }), replica('gone-0', ALL.slice(4), { model: 'gone', rank: 1 })]),
    ),
    up('n3', report(gpus(8), [replica('gone-0', ALL, { model: 'gone', rank: 0 })])),
    up('n4', report(gpus(8))),
  ]);
  const p = plan(cfg, snap);
  assert.equal(p.actions.map(brief), [
    'stop big-0 n1[0,1,2,3,4,5,6,7] (failed) after []',
    'stop gone-0 n3[0,1,2,3,4,5,6,7] (not in models.yaml) after []',
    'start big-1 n1[0,1,2,3,4,5,6,7]+n3[0,1,2,3,4,5,6,7] :8000 none',
  ]);
});

test('replica ids a node outside cluster.yaml still reports stay taken: the new replica is m-2, not m-0', () => {
  const cfg = config([nodeConfig('n1')], {}, [model('m', { replicas: 1 })]);
  const snap = snapshot([up('n1', report(gpus(8))), up('retired', report(gpus(8), [replica('m-0', [0]), replica('m-1', [1], { port: 8001 })]))]);
  const fleet = buildFleet(cfg, snap, emptyState(), NOW);
  assert.equal(fleet.foreignReplicaIds, ['m-0', 'm-1']);
  assert.equal(planFleet(fleet, emptyState()).actions.map(brief), ['start m-2 n1[0] :8000 none']);
});

test.run();
