import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { projectSnapshot } from '../../src/plan/project-snapshot.js';
import { replicaSpec } from '../../src/plan/spec.js';
import type { Plan } from '../../src/types/plan.js';
import type { AgentReport, Snapshot } from '../../src/types/snapshot.js';
import { ENGINE, makeConfig } from './fleet-fixture.js';

const report = (replicas: AgentReport['replicas']): AgentReport => ({ version: 1, gpus: [], replicas, storage: [], warnings: [] });

test('the projected snapshot has new replicas starting on their nodes and stopped ones gone', () => {
  const config = makeConfig({ nodes: [{ name: 'a1' }, { name: 'a2' }, { name: 'a3' }], models: [{ name: 'm', gpus: 4, nodes: 2 }] });
  const snapshot: Snapshot = {
    version: 1,
    observedAt: '2026-11-29T08:00:00Z',
    nodes: [
      { name: 'a1', reachable: true, report: report([{ id: 'old-0', model: 'old', gpus: [0], state: 'running', port: 8000 }]) },
      { name: 'a2', reachable: true, report: report([]) },
      { name: 'a3', reachable: false, error: 'timeout', unreachableSince: null, lastReport: report([{ id: 'x-0', model: 'x', gpus: [0], state: 'running' }]) },
    ],
    routers: [],
  };
  const plan: Plan = {
    version: 1,
    changes: true,
    blocked: null,
    actions: [
      { op: 'stop', replica: 'old-0', model: 'old', placement: [{ node: 'a1', gpus: [0] }], reason: 'not in models.yaml', waitFor: [] },
      { op: 'start', replica: 'm-0', model: 'm', port: 8000, placement: [{ node: 'a1', gpus: [0, 1, 2, 3] }, { node: 'a2', gpus: [0, 1, 2, 3] }], weights: 'none', reason: '1 of 1 replica missing' },
    ],
    unplaceable: [],
  };
  const projected = projectSnapshot(snapshot, plan, config);
  const spec = replicaSpec(config.models[0]!, ENGINE);
  assert.equal(projected.nodes[0], {
    name: 'a1',
    reachable: true,
    report: report([{ id: 'm-0', model: 'm', gpus: [0, 1, 2, 3], state: 'starting', endpoint: 'http://a1:8000', port: 8000, rank: 0, spec }]),
  });
  assert.equal((projected.nodes[1] as { report: AgentReport }).report.replicas.map((r) => [r.id, r.rank]), [['m-0', 1]]);
  assert.is(projected.nodes[2], snapshot.nodes[2]);
  // The observed snapshot is not touched.
  assert.is((snapshot.nodes[0] as { report: AgentReport }).report.replicas[0]!.id, 'old-0');
});

test.run();
