// The plan: plain data, printable and serialisable (docs/commands.md plan JSON).

export interface Placement {
  node: string;
  gpus: number[];
}

export type WeightsLocality = 'node' | 'fabric' | 'none';

/**
 * Why an action is in a PR's plan (docs/commands.md plan --base): `change` — it
 * would not happen if REF's config were planned on the same snapshot, state and
 * time; `pending` — it happens on REF anyway (drift repair, a failed restart, a
 * lost node).
 */
export type Cause = 'change' | 'pending';

export interface StartAction {
  op: 'start';
  replica: string;
  model: string;
  port: number;
  /** One entry per rank, rank 0 first. */
  placement: Placement[];
  weights: WeightsLocality;
  reason: string;
  /** Set by `llmgw plan` (src/plan/cause.ts); the planner leaves it out. */
  cause?: Cause;
}

export interface StopAction {
  op: 'stop';
  replica: string;
  model: string;
  placement: Placement[];
  reason: string;
  /** Replicas that must be running before this stop (a replacement). */
  waitFor: string[];
  /**
   * A duplicate's stop: only the copy of the id that is not its placement of
   * record (src/fleet/duplicates.ts). The replica itself keeps running, keeps
   * its GPUs and its place in the routers' tables; absent on every other stop.
   */
  duplicate?: true;
  /**
   * `drain`: this tick takes the replica out of every router's table and a
   * later tick stops it once drained (docs/safety.md#stopping-a-replica); `stop`: this
   * tick stops the process (SIGTERM, SIGKILL after stopGrace). Absent: `stop`.
   */
  phase?: StopPhase;
  /** Set by `llmgw plan` (src/plan/cause.ts); the planner leaves it out. */
  cause?: Cause;
}

export type StopPhase = 'drain' | 'stop';

export type Action = StartAction | StopAction;

export interface Unplaceable {
  model: string;
  missing: number;
  reason: string;
}

export interface Plan {
  version: 1;
  changes: boolean;
  /** null, or one sentence naming the safety rule that refuses the plan, with its numbers. */
  blocked: string | null;
  actions: Action[];
  unplaceable: Unplaceable[];
  /** Models whose changed spec rolls out with canaries (models.yaml `rollout`), or whose rollout failed. Absent: none. */
  rollouts?: RolloutPlan[];
  /** In `mode: jobs` (docs/slurm.md): the Slurm jobs it submits and cancels, in action order. Absent outside jobs mode. */
  slurmJobs?: PlanJob[];
}

/** A Slurm job a jobs-mode plan submits (one per rank of a start) or cancels (one per rank of a stop whose job still runs). */
export interface PlanJob {
  op: 'submit' | 'cancel';
  /** `llmgw/<replica>/<rank>`. */
  name: string;
  replica: string;
  rank: number;
  /** cluster.yaml's name of the node. */
  node: string;
  /** `--gres=gpu:<gpus>`: the count the plan chose (Slurm chooses the indices). */
  gpus: number;
  /** A cancel's Slurm job id. */
  id?: string;
}

/** Where a model's rollout stands (docs/safety.md#rollouts). `hold`: the canaries run and are being judged. */
export type RolloutStage = 'canary' | 'hold' | 'rolling' | 'failed';

/** A rollout as a plan shows it, and what state.json remembers of it after this tick. */
export interface RolloutPlan {
  model: string;
  /** The spec being rolled out. */
  spec: string;
  stage: RolloutStage;
  /** One sentence: `canary 1 of 4 for spec 5f2c9a1e`, `rollout failed for spec 5f2c9a1e: …`. */
  text: string;
  /** What state.json keeps for the model once a tick applied this plan. */
  next: RolloutRecord;
}

/** state.json `lifecycle.rollouts.<model>`: what a rollout must remember across ticks. */
export interface RolloutRecord {
  spec: string;
  /** `canary` (starting or holding), `rolling` (promoted), `failed` (rolled back: not tried again). */
  stage: 'canary' | 'rolling' | 'failed';
  /** When the hold began: the tick that saw every canary running (and routed them). */
  holdSince?: string;
  /** The canaries the hold judges, sorted. */
  canaries?: string[];
  /** Per router, the canaries' served counters when the hold began, and the router's start (a restart resets them). */
  baseline?: Record<string, ServedBaseline>;
  /** Why it failed (stage failed). */
  reason?: string;
  /** When it failed (stage failed). */
  failedAt?: string;
}

export interface ServedBaseline {
  startedAt: string;
  requests: number;
  errors: number;
}
