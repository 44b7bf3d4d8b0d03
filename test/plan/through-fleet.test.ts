// The seed distinctions once more, from config and snapshot through the real
// fleet model (src/fleet), so the planner and the model agree on what they mean.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildFleet } from '../../src/fleet/build-fleet.js';
import { planFleet } from '../../src/plan/plan-fleet.js';
import { renderPlanJson } from '../../src/views/plan/render-json.js';
import type { Action, StartAction } from '../../src/types/plan.js';
import type { AgentReport, NodeObservation, ReplicaReport, Snapshot, StorageReport } from '../../src/types/snapshot.js';
import { emptyState } from '../../src/types/state.js';
import { makeConfig, NOW, type FleetIn } from '../fixtures/index.js';

const LOCAL = { path: '/models', kind: 'local' as const };
const SHARED = { path: '/lustre', kind: 'shared' as const, filer: 'lustre-a' };

function report(replicas: ReplicaReport[] = [], storage: StorageReport[] = []): AgentReport {
  const gpus = Array.from({ length: 8 }, (_, index) => ({ index, name: 'NVIDIA H100 80GB HBM3', healthy: true }));
  return { version: 1, gpus, replicas, storage, warnings: [] };
}

function snapshot(nodes: NodeObservation[]): Snapshot {
  return { version: 1, observedAt: NOW, nodes, routers: [] };
}

const up = (name: string, r: AgentReport = report()): NodeObservation => ({ name, reachable: true, report: r });
const firstStart = (json: string) => (JSON.parse(json).actions as Action[]).find((a): a is StartAction => a.op === 'start')!;

test('through the fleet model: a local copy makes its fabric-mate `fabric`, never `node`', () => {
  const input: FleetIn = {
    nodes: [
      { name: 'a1', storage: [LOCAL] },
      { name: 'a2', storage: [LOCAL] },
    ],
    models: [{ name: 'm', gpus: 8, replicas: 2, weights: 'org/m' }],
  };
  const config = makeConfig(input);
  const snap = snapshot([up('a1'), up('a2', report([], [{ ...LOCAL, weights: ['org/m'], incomplete: [] }]))]);
  const plan = planFleet(buildFleet(config, snap, emptyState(), NOW), emptyState());
  assert.equal(
    plan.actions.map((a) => [a.placement[0]!.node, (a as StartAction).weights]),
    [
      ['a2', 'node'],
      ['a1', 'fabric'],
    ],
  );
});

test('through the fleet model: a node never told to look ranks like one that looked and found nothing', () => {
  const config = makeConfig({
    nodes: [
      { name: 'a2', storage: [] },
      { name: 'a1', storage: [SHARED] },
    ],
    models: [{ name: 'm', gpus: 8, weights: 'org/m' }],
  });
  // a2 claims the weights in a path cluster.yaml never told it about: that holds nothing.
  const snap = snapshot([
    up('a1', report([], [{ ...SHARED, weights: [], incomplete: [] }])),
    up('a2', report([], [{ ...SHARED, weights: ['org/m'], incomplete: [] }])),
  ]);
  const start = firstStart(renderPlanJson(planFleet(buildFleet(config, snap, emptyState(), NOW), emptyState())));
  assert.equal([start.placement[0]!.node, start.weights], ['a1', 'none']);
});

test('through the fleet model: an unreachable node keeps its replicas until lost, then they are placed again', () => {
  const config = makeConfig({ nodes: [{ name: 'a1' }, { name: 'a2' }], models: [{ name: 'm', gpus: 8 }] });
  const last = report([{ id: 'm-0', model: 'm', gpus: [0, 1, 2, 3, 4, 5, 6, 7], state: 'running', port: 8000 }]);
  const down = (since: string): NodeObservation => ({ name: 'a1', reachable: false, error: 'timeout', unreachableSince: since, lastReport: last });
  const recent = snapshot([down('2026-11-29T07:55:00Z'), up('a2')]);
  assert.equal(planFleet(buildFleet(config, recent, emptyState(), NOW), emptyState()).actions, []);
  const longAgo = snapshot([down('2026-11-29T07:00:00Z'), up('a2')]);
  const plan = planFleet(buildFleet(config, longAgo, emptyState(), NOW), emptyState());
  assert.equal(
    plan.actions.map((a) => `${a.op} ${a.replica} ${a.placement[0]?.node}`),
    ['start m-1 a2'],
  );
});

test('through the fleet model: shuffling the snapshot node order changes nothing', () => {
  const names = ['a1', 'a2', 'a3', 'b1', 'b2', 'b3'];
  const config = makeConfig({
    nodes: names.map((name) => ({ name, fabric: `ib-${name[0]}`, storage: [LOCAL] })),
    models: [
      { name: 'm', gpus: 2, replicas: 7 },
      { name: 'big', gpus: 8, nodes: 2 },
    ],
  });
  const obs = names.map((name, i) =>
    up(
      name,
      report(i === 1 ? [{ id: 'm-0', model: 'm', gpus: [0, 1], state: 'running', port: 8000 }] : [], [
        { ...LOCAL, weights: i % 2 ? ['org/big'] : [], incomplete: [] },
      ]),
    ),
  );
  const expected = renderPlanJson(planFleet(buildFleet(config, snapshot(obs), emptyState(), NOW), emptyState()));
  for (const order of [
    [5, 4, 3, 2, 1, 0],
    [3, 0, 5, 1, 4, 2],
    [1, 3, 5, 0, 2, 4],
  ]) {
    const shuffled = snapshot(order.map((i) => obs[i]!));
    assert.is(renderPlanJson(planFleet(buildFleet(config, shuffled, emptyState(), NOW), emptyState())), expected);
  }
});

test.run();
