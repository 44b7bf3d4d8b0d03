// Small builders for hand-written fleets: a config, agent reports and snapshots.

import type { ClusterConfig, Config, ModelConfig, NodeConfig, StorageDecl } from '../../src/types/config.js';
import type { AgentReport, GpuReport, NodeObservation, ReplicaReport, RouterObservation, Snapshot, StorageReport } from '../../src/types/snapshot.js';

export const NOW = '2026-11-29T08:00:00Z';

export function nodeConfig(name: string, extra: Partial<NodeConfig> = {}): NodeConfig {
  return { name, host: name, port: 22, fabric: 'ib-a', cordon: false, storage: [], ...extra };
}

export function model(name: string, extra: Partial<ModelConfig> = {}): ModelConfig {
  return {
    name,
    weights: `org/${name}`,
    engine: 'vllm',
    gpus: 1,
    nodes: 1,
    replicas: 1,
    priority: 0,
    args: [],
    index: 0,
    drainTimeoutMs: 600_000,
    stopGraceMs: 30_000,
    check: null,
    rollout: null,
    ...extra,
  };
}

export function config(nodes: NodeConfig[], extra: Partial<ClusterConfig> = {}, models: ModelConfig[] = []): Config {
  const cluster: ClusterConfig = {
    name: 'test',
    ssh: { user: 'llmgw', knownHosts: '/dev/null', port: 22, connectTimeoutMs: 10_000, commandTimeoutMs: 60_000, concurrency: 8 },
    agent: { command: 'llmgw agent' },
    router: { command: 'llmgw router' },
    fabrics: ['ib-a', 'ib-b'],
    gpuClasses: [],
    nodes,
    routers: [],
    engines: { vllm: { name: 'vllm', command: ['vllm', 'serve'], basePort: 8000, health: '/health', startTimeoutMs: 1_200_000 } },
    notify: { webhooks: [] },
    idleAfterMs: 24 * 3600_000,
    lostAfterMs: 10 * 60_000,
    safety: { maxStopFraction: 0.5, minReachableFraction: 0.5 },
    git: { timeoutMs: 60_000 },
    ...extra,
  };
  return { cluster, models: models.map((m, index) => ({ ...m, index })) };
}

export function gpus(n: number, name = 'NVIDIA H100 80GB HBM3', unhealthy: number[] = []): GpuReport[] {
  return Array.from({ length: n }, (_, index) => ({ index, name, healthy: !unhealthy.includes(index) }));
}

/** GPU `index` with `foreign` compute processes llmgw did not start (0: none). */
export function foreignGpu(index: number, foreign: number, name = 'NVIDIA H100 80GB HBM3'): GpuReport {
  return { index, name, healthy: true, foreign };
}

export function replica(id: string, gpuIdx: number[], extra: Partial<ReplicaReport> = {}): ReplicaReport {
  const model = id.replace(/-\d+$/, '');
  return { id, model, gpus: gpuIdx, state: 'running', startedAt: '2026-11-28T00:00:00Z', port: 8000, rank: 0, ...extra };
}

export function report(g: GpuReport[], replicas: ReplicaReport[] = [], storage: StorageReport[] = []): AgentReport {
  return { version: 1, gpus: g, replicas, storage, warnings: [] };
}

export function stored(path: string, weights: string[], kind: StorageDecl['kind'] = 'local', filer?: string): StorageReport {
  return { path, kind, ...(filer ? { filer } : {}), weights, incomplete: [] };
}

export function up(name: string, r: AgentReport): NodeObservation {
  return { name, reachable: true, report: r };
}

export function down(name: string, since: string | null, last: AgentReport | null = null): NodeObservation {
  return { name, reachable: false, error: 'connect ETIMEDOUT', reason: 'timeout', unreachableSince: since, lastReport: last };
}

export function snapshot(nodes: NodeObservation[], routers: RouterObservation[] = []): Snapshot {
  return { version: 1, observedAt: NOW, nodes, routers };
}

export function routerUp(name: string, startedAt: string, lastUsed: Record<string, string> = {}): RouterObservation {
  return { name, reachable: true, report: { version: 1, startedAt, lastUsed } };
}
