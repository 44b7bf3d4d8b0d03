// A 2,000-node fleet and a pull request against it whose plan has about a
// thousand actions of every kind — this change's starts, stops and spec roll,
// and pending repairs (lost nodes, failed replicas) — for the markdown plan's
// golden file and its size guarantees. Deterministic: built by the real
// planner on an empty fleet, then roughed up by a fixed rule.

import { parseConfig } from '../../src/config/load-config.js';
import { expectedEffects } from '../../src/apply/schedule.js';
import { buildFleet } from '../../src/fleet/build-fleet.js';
import { planFleet } from '../../src/plan/plan-fleet.js';
import { projectFleet, projectedSnapshot } from '../../src/plan/project-fleet.js';
import type { Config } from '../../src/types/config.js';
import type { NodeObservation, ReplicaReport, Snapshot } from '../../src/types/snapshot.js';
import { emptyState } from '../../src/types/state.js';

export const HUGE_NOW = '2026-11-29T08:00:00Z';
const FABRICS = ['a', 'b', 'c', 'd'];

function clusterYaml(): string {
  const nodes = FABRICS.map((f) => `  - { name: "hgx-${f}[0001-0500]", fabric: ib-${f}, storage: [{ path: /models, kind: local }] }`);
  return [
    'apiVersion: llmgw/v1',
    'kind: Cluster',
    'name: huge',
    `fabrics: [${FABRICS.map((f) => `ib-${f}`).join(', ')}]`,
    'nodes:',
    ...nodes,
    'engines:',
    '  vllm: { command: [vllm, serve, "{weightsPath}", --served-model-name, "{model}", --tensor-parallel-size, "{gpus}", --port, "{port}"] }',
    'notify: { webhooks: [{ url: "https://hooks.example/x" }] }',
    'lostAfter: 10m',
    'safety: { maxStopFraction: 0.5, minReachableFraction: 0.5 }',
    '',
  ].join('\n');
}

/** REF's models, and the PR's: one removed, one scaled up, one with new args, one new that cannot fit. */
export function modelsYaml(side: 'base' | 'pr'): string {
  const pr = side === 'pr';
  const m = (name: string, gpus: number, replicas: number, extra = '') =>
    `  - { name: ${name}, weights: org/${name}, engine: vllm, gpus: ${gpus}, replicas: ${replicas}${extra} }`;
  return [
    'apiVersion: llmgw/v1',
    'kind: Models',
    'models:',
    m('chat-8b', 1, pr ? 950 : 400),
    m('code-34b', 4, 150, pr ? ', args: [--max-model-len, "65536"]' : ''),
    m('big-70b', 8, 200),
    ...(pr ? [] : [m('old-13b', 2, 120)]),
    m('huge-405b', 8, 40, ', nodes: 2'),
    ...(pr ? [m('giant-1t', 8, 4, ', nodes: 2, gpuClass: B200')] : []),
    '',
  ].join('\n');
}

function load(models: string): Config {
  const r = parseConfig({ cluster: { name: 'cluster.yaml', text: clusterYaml() }, models: { name: 'models.yaml', text: models } });
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.config;
}

export interface HugeWorld {
  base: Config;
  pr: Config;
  snapshot: Snapshot;
}

export function hugeWorld(): HugeWorld {
  const base = load(modelsYaml('base'));
  const gpus = Array.from({ length: 8 }, (_, index) => ({ index, name: 'NVIDIA H100 80GB HBM3', healthy: true }));
  const empty: Snapshot = {
    version: 1,
    observedAt: HUGE_NOW,
    nodes: base.cluster.nodes.map((n) => ({
      name: n.name,
      reachable: true,
      report: { version: 1, gpus, replicas: [], storage: [{ path: '/models', kind: 'local', weights: [], incomplete: [] }], warnings: [] },
    })),
    routers: [],
  };
  const fleet = buildFleet(base, empty, emptyState(), HUGE_NOW);
  const placed = projectedSnapshot(empty, projectFleet(fleet, expectedEffects(planFleet(fleet, emptyState()), fleet)));
  // Everything running; every 97th node silent for an hour (lost), every 53rd replica failed.
  let k = 0;
  const nodes = placed.nodes.map((obs, i): NodeObservation => {
    if (!obs.reachable) return obs;
    const replicas = obs.report.replicas.map((r): ReplicaReport => ({
      ...r,
      state: k++ % 53 === 7 ? 'failed' : 'running',
      startedAt: '2026-11-28T08:00:00Z',
    }));
    const report = { ...obs.report, replicas };
    if (i % 97 === 3) return { name: obs.name, reachable: false, error: 'connect ETIMEDOUT', unreachableSince: '2026-11-29T07:00:00Z', lastReport: report };
    return { ...obs, report };
  });
  return { base, pr: load(modelsYaml('pr')), snapshot: { ...placed, nodes } };
}
