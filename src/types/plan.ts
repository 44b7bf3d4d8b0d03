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
  /** Set by `llmgw plan` (src/plan/cause.ts); the planner leaves it out. */
  cause?: Cause;
}

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
}
