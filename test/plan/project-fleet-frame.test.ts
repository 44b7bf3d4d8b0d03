// What a projection (src/plan/project-fleet.ts) carries over from the fleet
// handed in besides the nodes: the ids foreign nodes still hold, the routers as
// observed, and each running replica's idleness — only when it is known whole.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildFleet } from '../../src/fleet/build-fleet.js';
import { projectFleet } from '../../src/plan/project-fleet.js';
import type { Fleet } from '../../src/types/fleet.js';
import type { StartAction } from '../../src/types/plan.js';
import type { AgentReport, RouterObservation, SlurmView, Snapshot } from '../../src/types/snapshot.js';
import { emptyState } from '../../src/types/state.js';
import { makeConfig, makeFleet, NOW, startOf } from '../fixtures/index.js';

const gpus = (n: number) => Array.from({ length: n }, (_, index) => ({ index, name: 'NVIDIA H100 80GB HBM3', healthy: true }));
const running = (id: string, gpu: number) => ({ id, model: id.replace(/-\d+$/, ''), gpus: [gpu], state: 'running' as const, port: 8000 + gpu });
const report = (replicas: AgentReport['replicas']): AgentReport => ({ version: 1, gpus: gpus(8), replicas, storage: [], warnings: [] });

const ROUTERS: RouterObservation[] = [{ name: 'r1', reachable: false, error: 'connection refused' }];

/** a1 (in cluster.yaml) runs a-0, b-0 and c-0; b9 (no longer in cluster.yaml) still runs f-0. */
function fleetOf(routers: RouterObservation[] = []): Fleet {
  const config = makeConfig({ nodes: [{ name: 'a1' }], models: [{ name: 'a' }, { name: 'b' }, { name: 'c' }, { name: 'n' }] });
  const snapshot: Snapshot = {
    version: 1,
    observedAt: NOW,
    nodes: [
      { name: 'a1', reachable: true, report: report([running('a-0', 0), running('b-0', 1), running('c-0', 2)]) },
      { name: 'b9', reachable: true, report: report([running('f-0', 0)]) },
    ],
    routers,
  };
  return buildFleet(config, snapshot, emptyState(), NOW);
}

const startN: StartAction = startOf('n-0', [{ node: 'a1', gpus: [7] }], '1 of 1 replica missing', { port: 8007 });

test('the ids of replicas on nodes cluster.yaml no longer lists stay taken in the projection', () => {
  const fleet = fleetOf();
  assert.equal(fleet.foreignReplicaIds, ['f-0']);
  const after = projectFleet(fleet, { started: [startN], stopped: [] });
  assert.equal(after.foreignReplicaIds, ['f-0']);
});

test('the routers as observed are carried into the projection', () => {
  const fleet = fleetOf(ROUTERS);
  const after = projectFleet(fleet, { started: [startN], stopped: [] });
  assert.equal(after.routers, ROUTERS);
});

test('a fleet that says nothing of foreign ids or routers projects to none of either', () => {
  // A hand-built fleet (test/fixtures/fleet.ts) leaves both fields out.
  const fleet = makeFleet({ nodes: [{ name: 'a1', holds: ['org/n'] }], models: [{ name: 'n' }] });
  assert.equal([fleet.foreignReplicaIds, fleet.routers], [undefined, undefined]);
  const after = projectFleet(fleet, { started: [startN], stopped: [] });
  assert.equal([after.foreignReplicaIds, after.routers], [[], []]);
});

test("a running replica's idleness is carried over only when both its idle seconds and its idle-since time are known", () => {
  const built = fleetOf();
  const idle: Record<string, [number | null, string | null]> = {
    'a-0': [3600, '2026-11-29T07:00:00Z'],
    'b-0': [3600, null],
    'c-0': [null, '2026-11-29T07:00:00Z'],
  };
  const replicas = built.replicas.map((r) => ({ ...r, idleSeconds: idle[r.id]![0], idleSince: idle[r.id]![1] }));
  const fleet: Fleet = { ...built, replicas, replicaById: new Map(replicas.map((r) => [r.id, r])) };
  const after = projectFleet(fleet, { started: [startN], stopped: [] });
  assert.equal(
    after.replicas.map((r) => [r.id, r.state, r.idleSeconds, r.idleSince]),
    [
      ['a-0', 'running', 3600, '2026-11-29T07:00:00Z'],
      ['b-0', 'running', null, null],
      ['c-0', 'running', null, null],
      ['n-0', 'starting', null, null],
    ],
  );
});

test('Slurm`s view, and what Slurm says of each node it edits, are carried into the projection', () => {
  const fleet = fleetOf();
  const view: SlurmView = { reachable: true, nodes: {}, jobs: [], pending: 0, partition: 'gpu' };
  const slurm = { condition: { state: 'drain', reason: 'maintenance' }, gpusAllocated: 2 };
  const a1 = fleet.nodeByName.get('a1')!;
  const withSlurm: Fleet = { ...fleet, slurm: view, nodes: fleet.nodes.map((n) => (n === a1 ? { ...n, slurm } : n)) };
  withSlurm.nodeByName = new Map(withSlurm.nodes.map((n) => [n.name, n]));
  const after = projectFleet(withSlurm, { started: [startN], stopped: [] });
  assert.equal(after.slurm, view);
  assert.equal(after.nodeByName.get('a1')?.slurm, slurm);
  assert.is(projectFleet(fleet, { started: [startN], stopped: [] }).nodeByName.get('a1')?.slurm, undefined);
});

test.run();
