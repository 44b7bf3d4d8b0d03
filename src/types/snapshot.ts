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
  /**
   * Compute processes on this GPU that the agent did not start (docs/protocol.md#foreign-gpu-processes).
   * Absent: unknown (nvidia-smi could not list them; the report's warnings say why).
   */
  foreign?: number;
  /** Xids the kernel logged for this GPU since the agent's last report (docs/protocol.md#gpu-faults); absent: none, or unknown. */
  xid?: XidReport[];
}

/** One Xid: the driver's code for a GPU fault, and when the kernel logged it. */
export interface XidReport {
  code: number;
  at: string;
}

/** The outcome of the last answer check of a replica (docs/protocol.md#the-answer-check). */
export interface CheckResult {
  ok: boolean;
  /** When the answer was asked for. */
  at: string;
  /** Why it did not pass, when it did not: control characters removed, length-bounded. */
  error?: string;
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
  /** Why it failed, when state is failed. */
  error?: string;
  /** Its answer check's last outcome, when it has a check and one was tried. */
  check?: CheckResult;
  /** From the engine's metrics, when it was started with a metrics entry and they could be read. */
  load?: ReplicaLoad;
  /** The Slurm job it runs in, when `agent job` started it (docs/slurm.md). */
  slurmJob?: string;
}

export interface StorageReport {
  path: string;
  kind: 'local' | 'shared';
  filer?: string;
  /** Requested weights found complete. */
  weights: string[];
  /** Requested weights present but empty or half-written. */
  incomplete: string[];
  /** Per complete weights directory: its weights files' total bytes, and its config.json's shape fields (null without one). Absent from older agents. */
  sizes?: Record<string, WeightsSize>;
}

/** What the plan's fit rule reads of one holding (docs/protocol.md#sizes-of-weights). */
export interface WeightsSize {
  bytes: number;
  /** The config.json fields the fit rule reads (untrusted: read defensively), or null when the directory has none. */
  config: Record<string, unknown> | null;
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
  /** Gate `running` on a real completion (docs/protocol.md#the-answer-check); absent: health alone decides. */
  check?: AnswerCheck;
  /** The engine's Prometheus metrics, read at each report for `load` (docs/protocol.md#engine-progress); absent: none read. */
  metrics?: EngineMetricsEntry;
  /** Running requests and no progress for this long is stalled; absent: 60. */
  stallAfterSeconds?: number;
  /** The LoRA adapters it serves, each where the node holds (or should fetch) its weights; absent: none. */
  adapters?: { name: string; weights: string; weightsPath: string }[];
}

/** Where an engine's metrics are and which series mean what (cluster.yaml `engines.<name>.metrics`, resolved). */
export interface EngineMetricsEntry {
  path: string;
  running: string;
  waiting: string;
  progress: string;
}

/** What a replica's engine says it is doing, from its metrics (docs/protocol.md#engine-progress). */
export interface ReplicaLoad {
  running: number;
  waiting: number;
  /** The progress counter (vLLM: generation tokens since the engine started). */
  progress: number;
  /** Since when it has had running requests and made no progress for stallAfter; absent when progressing or idle. */
  stalledSince?: string;
}

export interface AnswerCheck {
  /** The user message sent to /v1/chat/completions. */
  prompt: string;
  /** A JavaScript RegExp source the answer's content must match, in RE2's syntax too (matched in linear time). */
  expect: string;
  /** RegExp flags, e.g. "i"; stateful ones (g, y) are refused. */
  flags?: string;
  /** Counted from the first healthy answer: no matching answer by then is failed. */
  timeoutSeconds: number;
}

/** A replica id, or an id with the grace SIGTERM gets before SIGKILL. */
export type StopEntry = string | { replica: string; graceSeconds?: number };

/** The reconciler's lease as a request carries it (docs/protocol.md#fencing): a node refuses an epoch lower than one it has seen. */
export interface Lease {
  epoch: number;
  holder: string;
}

export interface AgentApplyRequest {
  version: 1;
  node: string;
  /** Absent: epoch 0 (a reconciler older than fencing). */
  lease?: Lease;
  start: StartRequest[];
  stop: StopEntry[];
}

export interface ApplyResult {
  replica: string;
  op: 'start' | 'stop';
  ok: boolean;
  error?: string;
  /** Set when the request was refused for a stale lease (docs/protocol.md#fencing): its epoch and the highest the node has seen. */
  fenced?: { epoch: number; highest: number };
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
  /** The table the router routes by now (the last `router endpoints` it took); optional (docs/security.md). */
  table?: RouterEndpoints['models'];
  /** replica id -> its ejection from this router's rotation, only while it is out (docs/protocol.md). */
  ejected?: Record<string, RouterEjection>;
  /** model -> requests held at the router for want of a replica (docs/protocol.md). */
  waiting?: Record<string, { count: number; oldest: string }>;
}

/** A replica out of one router's rotation: `since` is the start of the current run of ejections. */
export interface RouterEjection {
  since: string;
  until: string;
  reason: 'errors' | 'stalled';
  /** Ejections in the current run. */
  count: number;
}

/** Per-model router settings sent with the table (docs/protocol.md `router endpoints`). */
export interface RouterModelSettings {
  consecutiveErrors?: number;
  stallAfterMs?: number;
  ejectForMs?: number;
  waitTimeoutMs?: number;
  /** LoRA adapter names served by the model's replicas. */
  adapters?: string[];
}

/** How a router picks among a model's replicas (models.yaml `routing`). */
export type RoutingMode = 'prefix' | 'least-inflight';

export interface RouterEndpoints {
  version: 1;
  models: Record<string, { replica: string; url: string }[]>;
  /** model -> routing mode; a model not listed routes by `prefix`. */
  routing?: Record<string, RoutingMode>;
  /** The sender's lease (fencing): a router refuses a table whose epoch is below the highest it has seen. */
  lease?: { epoch: number; holder: string };
  /** model -> liveness, waiting and adapter settings; absent: the router's defaults. */
  settings?: Record<string, RouterModelSettings>;
}

/**
 * Why a host did not answer, as a class an operator acts on (docs/status.md):
 * set by gather from the typed SSH error, never read back out of `error`'s text.
 * `unknown`: an internal error, or a snapshot written before the field existed.
 */
export type UnreachableReason =
  'timeout' | 'refused' | 'auth' | 'host-key-changed' | 'host-key-unknown' | 'bad-reply' | 'command-failed' | 'network' | 'unknown';

export type NodeObservation =
  | { name: string; reachable: true; report: AgentReport }
  | {
      name: string;
      reachable: false;
      error: string;
      /** Absent in snapshots older than the field: read as `unknown`. */
      reason?: UnreachableReason;
      /** null: unknown since when (treated as lost). */
      unreachableSince: string | null;
      lastReport: AgentReport | null;
    };

export type RouterObservation =
  { name: string; reachable: true; report: RouterUsage } | { name: string; reachable: false; error: string; reason?: UnreachableReason };

export interface Snapshot {
  version: 1;
  observedAt: string;
  /** Sorted by name. */
  nodes: NodeObservation[];
  /** Sorted by name. */
  routers: RouterObservation[];
  /** What Slurm reports (docs/slurm.md); absent without cluster.yaml `slurm:`. */
  slurm?: SlurmView;
}

/**
 * Slurm's view of the fleet, read on `slurm.host` (docs/slurm.md). Unreachable:
 * the last view is kept (nodes, jobs, pending) until `lostAfter`, then its nodes
 * are emptied and every node's Slurm condition is unknown.
 */
export interface SlurmView {
  reachable: boolean;
  /** By cluster.yaml node name: the nodes of cluster.yaml that Slurm reports. */
  nodes: Record<string, SlurmNodeView>;
  /** llmgw's own jobs (named llmgw/<replica>/<rank>), ended ones included while Slurm still lists them. */
  jobs: SlurmJobView[];
  /**
   * GPUs asked for by pending jobs that are not llmgw's, in `slurm.partition`
   * (every partition when none is set); held jobs and jobs waiting on another
   * job or a begin time are not counted: no free GPU would start them.
   */
  pending: number;
  /** Ids of those pending jobs, in Slurm's order (for yield's commit message); at most 100. */
  pendingJobs?: string[];
  /** Those same jobs (at most 100): what each asks for and where it may run, what yield judges by. */
  pendingNeeds?: SlurmPendingNeed[];
  /** `slurm.partition` when set: a node outside it is not placeable. */
  partition?: string;
  /** Unreachable: why (one line), and since when. */
  error?: string;
  unreachableSince?: string;
}

/**
 * A pending job that is not llmgw's, as yield reads it (docs/slurm.md#yield-yield-true):
 * it may run on a node of cluster.yaml in one of `partitions`, or only on
 * `nodes` when it names some (`--nodelist`), never on `excluded`.
 */
export interface SlurmPendingNeed {
  id: string;
  /** GPUs it asks for in all. */
  gpus: number;
  partitions: string[];
  /** cluster.yaml names of its `--nodelist`; absent: any node of its partitions. */
  nodes?: string[];
  /** cluster.yaml names of its `--exclude`; absent: none. */
  excluded?: string[];
}

export interface SlurmNodeView {
  /** Slurm's state and flags, lowercase, joined by '+': `idle+drain`, `mixed`, `down+not_responding`. */
  state: string;
  /** Slurm's reason, as an operator wrote it ('' when none). */
  reason: string;
  /** GPUs held by Slurm jobs that are not llmgw's. */
  gpusAllocated: number;
  /**
   * Which GPUs those are, by Slurm's index (gres.conf's File= order, normally
   * the /dev/nvidiaN number), when Slurm says (`gres_detail`); absent when none
   * are held. Observe mode places on other indices.
   */
  gpuIndicesAllocated?: number[];
  partitions: string[];
  /** Reservations on this node, not llmgw's own, that had not ended when read. */
  reservations?: SlurmReservationView[];
}

export interface SlurmReservationView {
  name: string;
  /** ISO times; null when Slurm's text gave none readable (then `active` at reading decides). */
  start: string | null;
  end: string | null;
  active: boolean;
  flags: string[];
}

export interface SlurmJobView {
  id: string;
  name: string;
  /** The node it runs on (cluster.yaml's name), '' while pending. */
  node: string;
  /** Slurm's job state, lowercase: pending, running, cancelled, … */
  state: string;
  gpus: number;
}
