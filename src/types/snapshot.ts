// What crosses the wire from agents and routers, and the snapshot built from it
// (docs/protocol.md). These mirror schemas/*.schema.json.

export type ReplicaState = 'starting' | 'running' | 'failed';

export interface GpuReport {
  index: number;
  uuid?: string;
  name: string;
  memoryMiB?: number;
  healthy: boolean;
  /** Why it is unhealthy, when it is. */
  reason?: string;
}

export interface ReplicaReport {
  id: string;
  model: string;
  gpus: number[];
  state: ReplicaState;
  startedAt?: string;
  endpoint?: string;
  /** The port the replica listens on; when absent, taken from endpoint. */
  port?: number;
  rank?: number;
  spec?: string;
}

export interface StorageReport {
  path: string;
  kind: 'local' | 'shared';
  filer?: string;
  /** Requested weights found complete. */
  weights: string[];
  /** Requested weights present but empty or half-written. */
  incomplete: string[];
}

export interface AgentReport {
  version: 1;
  gpus: GpuReport[];
  replicas: ReplicaReport[];
  storage: StorageReport[];
  warnings: string[];
}

export interface AgentReportRequest {
  version: 1;
  node: string;
  storage: { path: string; kind: 'local' | 'shared'; filer?: string }[];
  weights: string[];
}

export interface StartRequest {
  replica: string;
  model: string;
  spec: string;
  weights: string;
  weightsPath: string;
  gpus: number[];
  port: number;
  endpoint: string;
  rank: number;
  peers: string[];
  command: string[];
  env: Record<string, string>;
  health: string;
  startTimeoutSeconds: number;
}

export interface AgentApplyRequest {
  version: 1;
  node: string;
  start: StartRequest[];
  stop: string[];
}

export interface ApplyResult {
  replica: string;
  op: 'start' | 'stop';
  ok: boolean;
  error?: string;
}

export interface AgentApplyReply {
  version: 1;
  results: ApplyResult[];
}

export interface RouterUsage {
  version: 1;
  startedAt: string;
  /** replica id -> ISO time of the newest request that acquired it. */
  lastUsed: Record<string, string>;
  /** replica id -> requests in flight now (absent from routers older than 0.2). */
  inflight?: Record<string, number>;
  /** replica id -> attempts finished since the router started; errors = 5xx answers and failed connections. */
  served?: Record<string, { requests: number; errors: number }>;
}

/** How a router picks among a model's replicas (models.yaml `routing`). */
export type RoutingMode = 'prefix' | 'least-inflight';

export interface RouterEndpoints {
  version: 1;
  models: Record<string, { replica: string; url: string }[]>;
  /** model -> routing mode; a model not listed routes by `prefix`. */
  routing?: Record<string, RoutingMode>;
}

export type NodeObservation =
  | { name: string; reachable: true; report: AgentReport }
  | {
      name: string;
      reachable: false;
      error: string;
      /** null: unknown since when (treated as lost). */
      unreachableSince: string | null;
      lastReport: AgentReport | null;
    };

export type RouterObservation =
  | { name: string; reachable: true; report: RouterUsage }
  | { name: string; reachable: false; error: string };

export interface Snapshot {
  version: 1;
  observedAt: string;
  /** Sorted by name. */
  nodes: NodeObservation[];
  /** Sorted by name. */
  routers: RouterObservation[];
}
