// The resolved configuration: what cluster.yaml and models.yaml mean after
// validation, hostlist expansion, defaults and ${VAR} substitution.
// Every duration is in milliseconds.

import type { RoutingMode } from './snapshot.js';

export type StorageKind = 'local' | 'shared';

export interface StorageDecl {
  path: string;
  kind: StorageKind;
  /** Only for kind 'shared': the filer's name, e.g. lustre-a. */
  filer?: string;
}

export interface ProxyJump {
  user: string;
  host: string;
  port: number;
}

export interface SshConfig {
  user: string;
  /** Absolute path (~ expanded), or undefined to use the ssh-agent at SSH_AUTH_SOCK. */
  identityFile?: string;
  /** How messages name identityFile when cluster.yaml wrote it through `${VAR}`s (e.g. `ssh.identityFile (${LLMGW_KEY})`): never the resolved path. */
  identityFileLabel?: string;
  /** Absolute path (~ expanded). */
  knownHosts: string;
  port: number;
  connectTimeoutMs: number;
  commandTimeoutMs: number;
  concurrency: number;
  /** cluster.yaml `ssh.keepOpen`: connections `llmgw run` keeps open between ticks, at most (the least recently used closes first); absent: DEFAULT_KEEP_OPEN. */
  keepOpen?: number;
  proxyJump?: ProxyJump;
}

/** docs/config.md `ssh.keepOpen`: enough for most fleets, and far under the 20,000 descriptors a process gets here. */
export const DEFAULT_KEEP_OPEN = 4096;

export interface NodeConfig {
  /** One expanded hostlist name. */
  name: string;
  /** `{name}` already substituted; defaults to the name. */
  host: string;
  port: number;
  fabric: string;
  cordon: boolean;
  /** cluster.yaml `nodes[].gpus`: a report listing more is not believed (docs/placement.md#inventory); absent: undeclared. */
  gpus?: number;
  /** Empty when cluster.yaml tells the node nothing (storage omitted). */
  storage: StorageDecl[];
}

export interface RouterConfig {
  name: string;
  host: string;
  port: number;
}

export interface EngineConfig {
  name: string;
  /** argv template with {placeholders} (docs/config.md). */
  command: string[];
  basePort: number;
  health: string;
  startTimeoutMs: number;
  /**
   * Globs (`*`, `?`, `[…]`) every arg of a model on this engine must match,
   * as models.yaml writes it (before placeholders); undefined: any args.
   */
  allowArgs?: string[];
  /** Where the engine's Prometheus metrics are and what they are called (docs/config.md#engines); undefined: not read. */
  metrics?: EngineMetrics;
}

/** An engine's metrics entry, resolved: vLLM's names where cluster.yaml writes none. */
export interface EngineMetrics {
  path: string;
  running: string;
  waiting: string;
  progress: string;
}

export type EventName =
  | 'node.lost'
  | 'node.recovered'
  | 'model.down'
  | 'model.recovered'
  | 'model.unplaceable'
  | 'apply.failed'
  | 'config.invalid'
  | 'plan.blocked'
  | 'rollout.failed'
  | 'gpu.quarantined'
  | 'replica.stalled'
  | 'model.scaled';

export const EVENT_NAMES: readonly EventName[] = [
  'node.lost',
  'node.recovered',
  'model.down',
  'model.recovered',
  'model.unplaceable',
  'apply.failed',
  'config.invalid',
  'plan.blocked',
  'rollout.failed',
  'gpu.quarantined',
  'replica.stalled',
  'model.scaled',
];

export interface WebhookConfig {
  /** ${VAR} substituted. A secret in its own right: never print it. */
  url: string;
  /** The variables the URL was built from (`$SLACK_URL`), in order; absent when written out. A hook is named by its position and these, never by its URL. */
  urlVars?: string[];
  secret?: string;
  /** Extra headers for every POST, `${VAR}`s substituted; absent when none. Values are secrets too. */
  headers?: Record<string, string>;
  /** Undefined = every event. */
  events?: EventName[];
}

export interface GpuClassRule {
  name: string;
  /** Glob with * and ? over the GPU product name. */
  glob: string;
}

export interface ClusterConfig {
  name: string;
  ssh: SshConfig;
  agent: { command: string };
  router: { command: string };
  fabrics: string[];
  gpuClasses: GpuClassRule[];
  /** Expanded, in file order. */
  nodes: NodeConfig[];
  routers: RouterConfig[];
  engines: Record<string, EngineConfig>;
  notify: { webhooks: WebhookConfig[] };
  idleAfterMs: number;
  lostAfterMs: number;
  safety: { maxStopFraction: number; minReachableFraction: number };
  /** Every git call is ended past this; `email`: cluster.yaml `git.email`, when set (docs/config.md). */
  git: { timeoutMs: number; email?: string };
  /**
   * cluster.yaml `defaults.drainTimeout` and `defaults.stopGrace`, resolved: how a
   * replica of a model models.yaml no longer names is stopped. Absent: the built-in ones.
   */
  stopDefaults?: { drainTimeoutMs: number; stopGraceMs: number };
  /**
   * GPU quarantine (docs/config.md): how long a fatal Xid keeps a GPU out
   * (`defaults.quarantine`), and the GPUs an operator lifted early
   * (`quarantine.release`, `node:index`). Absent: 24h, none released.
   */
  quarantine?: { durationMs: number; release: string[] };
  /** cluster.yaml `slurm:` (docs/slurm.md); absent: no Slurm, nothing changes. */
  slurm?: SlurmConfig;
}

/** cluster.yaml `slurm:`, resolved (docs/slurm.md). */
export interface SlurmConfig {
  /** The SSH host where sinfo, squeue, sbatch, scancel and scontrol work, reached with `ssh:`. */
  host: string;
  port: number;
  /** Required for mode jobs; when given, only nodes in it are placeable. */
  partition?: string;
  account?: string;
  qos?: string;
  /** llmgw's own reservation: its nodes stay placeable. */
  reservation?: string;
  mode: 'observe' | 'jobs';
  yield: boolean;
  /** cluster.yaml node name -> Slurm's name, for the nodes whose `slurmName` differs from their name. */
  names: Record<string, string>;
}

/** The answer check of a replica (docs/config.md): a chat completion whose answer must match. */
export interface CheckConfig {
  prompt: string;
  /** The regular expression, `(?i)` taken off: `new RegExp(expect.source, expect.flags)`. */
  expect: { source: string; flags: '' | 'i' };
  timeoutMs: number;
}

/** How a changed spec rolls out (docs/config.md). */
export interface RolloutConfig {
  canary: number;
  holdMs: number;
  /** 0..1 */
  maxErrorRate: number;
}

/** How a model's replicas are judged alive (docs/config.md#liveness). */
export interface LivenessConfig {
  /** Failed requests in a row that eject a replica from a router's rotation. */
  consecutiveErrors: number;
  /** No response bytes this long, with a stream in flight: stalled. */
  stallAfterMs: number;
  /** The first ejection's length (it doubles on each repeat, up to 5m). */
  ejectForMs: number;
  /** Stalled, or ejected by every router, this long: replaced. */
  replaceAfterMs: number;
}

export const LIVENESS_DEFAULTS: Readonly<LivenessConfig> = { consecutiveErrors: 5, stallAfterMs: 60_000, ejectForMs: 30_000, replaceAfterMs: 120_000 };

export interface ModelConfig {
  name: string;
  weights: string;
  engine: string;
  gpuClass?: string;
  gpus: number;
  nodes: number;
  replicas: number;
  priority: number;
  args: string[];
  /** How routers pick among its replicas; absent = the routers' default, prefix. */
  routing?: RoutingMode;
  /** Position in models.yaml, for the file-order tie-break. */
  index: number;
  /** How long a stop waits for the routers to drain the replica: the model's, else cluster.yaml defaults', else 10m. */
  drainTimeoutMs: number;
  /** Liveness beyond /health (docs/config.md#liveness): the model's, else cluster.yaml defaults.liveness, else the built-in ones. Absent: the built-in ones. */
  liveness?: LivenessConfig;
  /** SIGTERM to SIGKILL: the model's, else the default's, else 30s. */
  stopGraceMs: number;
  /** The model's check, else defaults.check; null: none (or `check: false`). */
  check: CheckConfig | null;
  /** null: a changed spec is replaced without canaries. */
  rollout: RolloutConfig | null;
  /** Tokens one sequence may hold (docs/placement.md#will-it-fit); absent: the model's max_position_embeddings. */
  maxModelLen?: number;
  /** Share of each GPU's memory the engine may use (0..1]; absent: 0.9. */
  gpuMemoryUtilization?: number;
  /** The KV cache's element type; absent or `auto`: the model's own dtype. */
  kvCacheDtype?: KvCacheDtype;
  /** The weights' size in bytes, for weights no node holds yet; a holding's measured size wins. */
  weightsBytes?: number;
  /** What its replicas are kept apart by; absent: `node`. */
  spread?: Spread;
  /** What the model must outlive (docs/placement.md#survive); absent: `none`. */
  survive?: Spread;
  /**
   * models.yaml `replicas: {min, max}` (docs/config.md#on-demand-models): llmgw decides
   * the count within the range each tick, and the tick's config carries the decided
   * count in `replicas`. Absent: `replicas` is a fixed count.
   */
  scale?: ScaleConfig;
  /** How long a request waits at a router for a replica of this model; absent: the routers' default (5m). */
  waitTimeoutMs?: number;
  /** LoRA adapters its replicas serve (models.yaml `adapters`); absent: none. */
  adapters?: AdapterConfig[];
}

/** A replica range and how demand moves within it (docs/config.md#on-demand-models). */
export interface ScaleConfig {
  min: number;
  max: number;
  /** Demand (in flight plus waiting) per routable replica above which the model scales up. */
  targetInflight: number;
  /** How long a replica must be idle before the model scales down by one; absent: cluster.yaml `idle.after`. */
  scaleDownAfterMs?: number;
}

/** The default of models.yaml `targetInflight`. */
export const TARGET_INFLIGHT_DEFAULT = 32;

/** A LoRA adapter: the name requests use, and its weights (a directory under a storage path, like a model's). */
export interface AdapterConfig {
  name: string;
  weights: string;
}

/** models.yaml `spread` and `survive`: a failure domain, or none. */
export type Spread = 'node' | 'fabric' | 'none';

export const SPREADS: readonly Spread[] = ['node', 'fabric', 'none'];

/** models.yaml `kvCacheDtype`: vLLM's `--kv-cache-dtype` names, and the dtype names a config.json uses. */
export type KvCacheDtype = 'auto' | 'float16' | 'bfloat16' | 'float32' | 'fp8' | 'fp8_e4m3' | 'fp8_e5m2';

export const KV_CACHE_DTYPES: readonly KvCacheDtype[] = ['auto', 'float16', 'bfloat16', 'float32', 'fp8', 'fp8_e4m3', 'fp8_e5m2'];

/** What a model's fit, spread and survive keys mean when models.yaml does not write them. */
export const MODEL_FIT_DEFAULTS = { gpuMemoryUtilization: 0.9, spread: 'node', survive: 'none' } as const satisfies Pick<
  Required<ModelConfig>,
  'gpuMemoryUtilization' | 'spread' | 'survive'
>;

/**
 * What a model gets when neither models.yaml nor cluster.yaml's `defaults:`
 * say otherwise (docs/config.md); for code and tests that build a ModelConfig by hand.
 */
export const MODEL_LIFECYCLE_DEFAULTS: Readonly<Pick<ModelConfig, 'drainTimeoutMs' | 'stopGraceMs' | 'check' | 'rollout'>> = {
  drainTimeoutMs: 10 * 60_000,
  stopGraceMs: 30_000,
  check: null,
  rollout: null,
};

/** cluster.yaml's `git.timeout` when not written. */
export const GIT_TIMEOUT_DEFAULT_MS = 60_000;

export interface Config {
  cluster: ClusterConfig;
  models: ModelConfig[];
}

/** One problem found while loading config; printed as `file:line:col: path: message`. */
export interface ConfigProblem {
  file: string;
  line: number;
  col: number;
  /** Path inside the document, e.g. models[2].gpus; '' for the whole document. */
  path: string;
  message: string;
}

export type LoadResult = { ok: true; config: Config; warnings: ConfigProblem[] } | { ok: false; errors: ConfigProblem[]; warnings: ConfigProblem[] };
