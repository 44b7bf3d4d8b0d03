// The snapshot a tick commits from a projection (projectedSnapshot,
// src/plan/project-fleet.ts): a reached node's report as the projection left
// it; every other observation — a node not reached, a node cluster.yaml no
// longer lists, a node the projection did not change — exactly as observed.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildFleet } from '../../src/fleet/build-fleet.js';
import { projectFleet, projectedSnapshot } from '../../src/plan/project-fleet.js';
import type { StopAction } from '../../src/types/plan.js';
import type { AgentReport, Snapshot } from '../../src/types/snapshot.js';
import { emptyState } from '../../src/types/state.js';
import { makeConfig, NOW } from '../fixtures/index.js';

const gpus = (n: number) => Array.from({ length: n }, (_, index) => ({ index, name: 'NVIDIA H100 80GB HBM3', healthy: true }));
const report = (replicas: AgentReport['replicas']): AgentReport => ({ version: 1, gpus: gpus(8), replicas, storage: [], warnings: [] });
const running = (id: string) => ({ id, model: id.replace(/-\d+$/, ''), gpus: [0], state: 'running' as const, port: 8000 });

/** a1 runs old-0, a2 runs k-0, a3 is unreachable (last ran x-0), b9 is no longer in cluster.yaml (runs f-0). */
function world(): { snapshot: Snapshot; after: ReturnType<typeof projectFleet> } {
  const config = makeConfig({ nodes: [{ name: 'a1' }, { name: 'a2' }, { name: 'a3' }], models: [{ name: 'k' }] });
  const snapshot: Snapshot = {
    version: 1,
    observedAt: NOW,
    nodes: [
      { name: 'a1', reachable: true, report: report([running('old-0')]) },
      { name: 'a2', reachable: true, report: report([running('k-0')]) },
      { name: 'a3', reachable: false, error: 'timeout', unreachableSince: '2026-11-29T07:59:00Z', lastReport: report([running('x-0')]) },
      { name: 'b9', reachable: true, report: report([running('f-0')]) },
    ],
    routers: [],
  };
  const fleet = buildFleet(config, snapshot, emptyState(), NOW);
  const stop: StopAction = { op: 'stop', replica: 'old-0', model: 'old', placement: [{ node: 'a1', gpus: [0] }], reason: 'not in models.yaml', waitFor: [] };
  return { snapshot, after: projectFleet(fleet, { started: [], stopped: [stop] }) };
}

test('a node the projection changed is committed with the report the projection left it', () => {
  const { snapshot, after } = world();
  const projected = projectedSnapshot(snapshot, after);
  assert.equal(projected.nodes[0], { name: 'a1', reachable: true, report: report([]) });
});

test('a node llmgw did not reach is committed as observed: no report is added beside its last one', () => {
  const { snapshot, after } = world();
  const projected = projectedSnapshot(snapshot, after);
  assert.equal(projected.nodes[2], {
    name: 'a3',
    reachable: false,
    error: 'timeout',
    unreachableSince: '2026-11-29T07:59:00Z',
    lastReport: report([running('x-0')]),
  });
});

test('a reached node cluster.yaml no longer lists is committed as observed, its replicas still reported', () => {
  const { snapshot, after } = world();
  assert.is(after.nodeByName.get('b9'), undefined);
  const projected = projectedSnapshot(snapshot, after);
  assert.equal(projected.nodes[3], { name: 'b9', reachable: true, report: report([running('f-0')]) });
});

test('a reached node the projection did not change keeps its very observation: the same object, not a copy', () => {
  const { snapshot, after } = world();
  const projected = projectedSnapshot(snapshot, after);
  assert.is(projected.nodes[1], snapshot.nodes[1]);
  assert.is(projected.nodes[2], snapshot.nodes[2]);
  assert.is(projected.nodes[3], snapshot.nodes[3]);
  assert.is.not(projected.nodes[0], snapshot.nodes[0]);
});

test.run();
