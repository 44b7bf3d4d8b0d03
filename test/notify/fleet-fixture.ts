// Hand-built fleets with only what notifications read: node conditions and
// replica states of the models in config.

import type { Config, ModelConfig, NodeConfig } from '../../src/types/config.js';
import type { Fleet, FleetNode, FleetReplica, NodeCondition } from '../../src/types/fleet.js';
import type { ReplicaState } from '../../src/types/snapshot.js';

export interface FleetSpec {
  nodes: Record<string, NodeCondition>;
  models: Record<string, number>;
  /** id -> [model, node, state] */
  replicas?: Record<string, [string, string, ReplicaState]>;
}

export function fleet(spec: FleetSpec, now = '2026-11-29T08:00:00Z'): Fleet {
  const nodeConfig = (name: string): NodeConfig => ({ name, host: name, port: 22, fabric: 'ib-a', cordon: false, storage: [] });
  const replicas: FleetReplica[] = Object.entries(spec.replicas ?? {}).map(([id, [model, node, state]]) => ({
    id,
    model,
    state,
    startedAt: null,
    spec: null,
    port: 8000,
    endpoint: null,
    ranks: [{ node, rank: 0, gpus: [0] }],
    nodes: [node],
    lost: spec.nodes[node] === 'lost',
    unreachable: spec.nodes[node] === 'unreachable',
    idleSeconds: null,
    idleSince: null,
  }));
  const nodes: FleetNode[] = Object.entries(spec.nodes).map(([name, condition]) => ({
    name,
    config: nodeConfig(name),
    fabric: 'ib-a',
    cordoned: false,
    condition,
    unreachableSince: condition === 'reachable' ? null : '2026-11-29T07:40:00Z',
    error: condition === 'reachable' ? null : 'connect ETIMEDOUT',
    report: null,
    gpus: [],
    holds: new Set(),
    replicas: replicas.filter((r) => r.nodes.includes(name)).map((r) => r.id),
    usedPorts: new Set(),
    freeWholeClass: null,
  }));
  const models: ModelConfig[] = Object.entries(spec.models).map(([name, replicas], index) => ({
    name,
    weights: `org/${name}`,
    engine: 'vllm',
    gpus: 1,
    nodes: 1,
    replicas,
    priority: 0,
    args: [],
    index,
    drainTimeoutMs: 600_000,
    stopGraceMs: 30_000,
    check: null,
    rollout: null,
  }));
  const config = { cluster: { name: 'prod-eu' }, models } as unknown as Config;
  return {
    config,
    now,
    observedAt: now,
    nodes,
    nodeByName: new Map(nodes.map((n) => [n.name, n])),
    replicas,
    replicaById: new Map(replicas.map((r) => [r.id, r])),
    routersAnswered: false,
  };
}
