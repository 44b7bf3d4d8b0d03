// Small hand-built fleets for planner tests: each test states only the nodes,
// replicas and models its rule is about. Buckets follow docs/placement.md.

import type { Config, EngineConfig, ModelConfig, NodeConfig, StorageDecl } from '../../src/types/config.js';
import type { Action } from '../../src/types/plan.js';
import type { Fleet, FleetGpu, FleetNode, FleetReplica, NodeCondition } from '../../src/types/fleet.js';
import type { AgentReport, ReplicaState, WeightsSize } from '../../src/types/snapshot.js';
import { replicaSpec } from '../../src/plan/spec.js';
import { testCluster } from '../helpers/cluster.js';

export const NOW = '2026-11-29T08:00:00.000Z';

export interface NodeSpec {
  name: string;
  fabric?: string;
  gpus?: number;
  cls?: string;
  /** Per-index classes, overriding cls. */
  classes?: string[];
  unhealthy?: number[];
  cordon?: boolean;
  condition?: NodeCondition;
  /** Weights found in /models, a local path cluster.yaml tells the node to look in. */
  holds?: string[];
  /** What cluster.yaml tells the node to look in (default: /models when it holds something). */
  storage?: StorageDecl[];
  /** The GPUs' product name (default NVIDIA H100 80GB HBM3) and memory (default: not reported). */
  product?: string;
  memoryMiB?: number;
  /** storage[].sizes of /models: what the node reports of the weights it holds. */
  sizes?: Record<string, WeightsSize>;
}

export interface ReplicaSpecIn {
  id: string;
  model: string;
  ranks: { node: string; gpus: number[] }[];
  state?: ReplicaState;
  /** 'auto' (default): the current spec of its model; null: none reported. */
  spec?: string | null | 'auto';
  port?: number;
  idleSeconds?: number | null;
}

export interface ModelIn extends Partial<Omit<ModelConfig, 'name'>> {
  name: string;
}

export interface FleetIn {
  nodes: NodeSpec[];
  replicas?: ReplicaSpecIn[];
  models: ModelIn[];
  safety?: { maxStopFraction: number; minReachableFraction: number };
  now?: string;
}

export const ENGINE: EngineConfig = {
  name: 'vllm',
  command: ['vllm', 'serve', '{weightsPath}'],
  basePort: 8000,
  health: '/health',
  startTimeoutMs: 1_200_000,
};

const MODELS_DIR: StorageDecl = { path: '/models', kind: 'local' };

/** Holdings as the fleet model reads them: the node's own report, for a declared path. */
function holdingsReport(holds: string[] | undefined, sizes?: Record<string, WeightsSize>): AgentReport | null {
  if (!holds?.length) return null;
  const storage = [{ ...MODELS_DIR, weights: [...holds], incomplete: [], ...(sizes ? { sizes } : {}) }];
  return { version: 1, gpus: [], replicas: [], storage, warnings: [] };
}

export function model(m: ModelIn, index: number): ModelConfig {
  return {
    weights: `org/${m.name}`,
    engine: 'vllm',
    gpus: 1,
    nodes: 1,
    replicas: 1,
    priority: 0,
    args: [],
    index,
    drainTimeoutMs: 600_000,
    stopGraceMs: 30_000,
    check: null,
    rollout: null,
    ...m,
  };
}

export function makeConfig(input: FleetIn): Config {
  const models = input.models.map(model);
  const nodes: NodeConfig[] = input.nodes.map((n) => ({
    name: n.name,
    host: n.name,
    port: 22,
    fabric: n.fabric ?? 'ib-a',
    cordon: n.cordon ?? false,
    storage: n.storage ?? (n.holds?.length ? [MODELS_DIR] : []),
  }));
  const fabrics = [...new Set(nodes.map((n) => n.fabric))].sort();
  return {
    cluster: testCluster({
      ssh: { user: 'llmgw', knownHosts: '/dev/null', port: 22, connectTimeoutMs: 1, commandTimeoutMs: 1, concurrency: 1 },
      fabrics,
      nodes,
      engines: { vllm: ENGINE },
      safety: input.safety ?? { maxStopFraction: 1, minReachableFraction: 0 },
    }),
    models,
  };
}

export function makeFleet(input: FleetIn): Fleet {
  const config = makeConfig(input);
  const modelByName = new Map(config.models.map((m) => [m.name, m]));
  const replicas: FleetReplica[] = (input.replicas ?? []).map((r) => {
    const m = modelByName.get(r.model);
    const spec = r.spec === undefined || r.spec === 'auto' ? (m ? replicaSpec(m, ENGINE) : 'deadbeef') : r.spec;
    return {
      id: r.id,
      model: r.model,
      state: r.state ?? 'running',
      startedAt: null,
      spec,
      port: r.port ?? 8000,
      endpoint: null,
      ranks: r.ranks.map((x, rank) => ({ node: x.node, rank, gpus: x.gpus })),
      nodes: r.ranks.map((x) => x.node),
      lost: false,
      unreachable: false,
      idleSeconds: r.idleSeconds ?? null,
      idleSince: null,
    };
  });
  const nodes: FleetNode[] = input.nodes.map((n, i) => {
    const condition = n.condition ?? 'reachable';
    const count = n.gpus ?? 8;
    const gpus: FleetGpu[] = Array.from({ length: count }, (_, index) => ({
      index,
      class: n.classes?.[index] ?? n.cls ?? 'H100',
      name: n.product ?? 'NVIDIA H100 80GB HBM3',
      healthy: !(n.unhealthy ?? []).includes(index),
      bucket: 'free',
      replica: null,
      ...(n.memoryMiB !== undefined ? { memoryMiB: n.memoryMiB } : {}),
    }));
    const here = replicas.filter((r) => r.nodes.includes(n.name));
    for (const r of here) {
      if (condition === 'lost') r.lost = true;
      if (condition === 'unreachable') r.unreachable = true;
      for (const rank of r.ranks) {
        if (rank.node !== n.name) continue;
        for (const g of rank.gpus) gpus[g]!.replica = r.id;
      }
    }
    const cordoned = n.cordon ?? false;
    for (const g of gpus) {
      g.bucket = condition !== 'reachable' ? 'unreachable' : !g.healthy ? 'unhealthy' : g.replica ? 'used' : cordoned ? 'cordoned' : 'free';
    }
    const uniform = gpus.length > 0 && gpus.every((g) => g.healthy && g.class === gpus[0]!.class);
    return {
      name: n.name,
      config: config.cluster.nodes[i]!,
      fabric: n.fabric ?? 'ib-a',
      cordoned,
      condition,
      unreachableSince: null,
      error: null,
      report: holdingsReport(n.holds, n.sizes),
      gpus,
      holds: new Set(n.holds ?? []),
      replicas: here.map((r) => r.id).sort(),
      usedPorts: new Set(here.map((r) => r.port!).filter((p) => p !== null)),
      freeWholeClass: condition === 'reachable' && !cordoned && here.length === 0 && uniform ? gpus[0]!.class : null,
    };
  });
  nodes.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  replicas.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return {
    config,
    now: input.now ?? NOW,
    observedAt: input.now ?? NOW,
    nodes,
    nodeByName: new Map(nodes.map((n) => [n.name, n])),
    replicas,
    replicaById: new Map(replicas.map((r) => [r.id, r])),
    routersAnswered: false,
  };
}

/** One line per action, to compare a plan at a glance: `start m-1 a1+a2`, `stop m-0 (failed) after []`. */
export function brief(a: Action): string {
  return a.op === 'start' ? `start ${a.replica} ${a.placement.map((p) => p.node).join('+')}` : `stop ${a.replica} (${a.reason}) after [${a.waitFor.join(',')}]`;
}
