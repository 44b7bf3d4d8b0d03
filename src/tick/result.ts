// What one tick did, as plain data: the reconcile command prints it, the run
// loop logs it, the demo and the tests read it. Its `verdict` is the one
// answer to "did it act, and if not, why" (Flux's condition with a reason);
// the commit message (commit-message.ts) says the same in words.

import type { GpuCounts } from '../ledger/buckets.js';
import type { ApplyOutcome } from '../apply/outcome.js';
import type { StatusReport } from '../status/index.js';
import type { Plan } from '../types/plan.js';

/** Why a tick that planned applied nothing. */
export type HoldReason =
  /** The plan breaks a safety rule (docs/safety.md); `llmgw apply --force` overrides it. */
  | 'blocked'
  /** cluster.yaml or models.yaml has uncommitted edits: only committed config is applied. */
  | 'uncommitted-edits'
  /** The lease would run out during the apply: another instance could act at the same time. */
  | 'lease-short'
  /** Another instance holds the lease: this one stands by. */
  | 'lease-elsewhere'
  /** A node or router refused this holder's epoch (another holder has acted since): it stopped acting and committed nothing. */
  | 'fenced'
  /** A person answered no at `llmgw apply`'s prompt. */
  | 'declined'
  /** Nobody answered `llmgw apply`'s prompt within --confirm-timeout. */
  | 'confirm-timeout';

export type TickVerdict =
  | { kind: 'config-invalid'; problems: number }
  | { kind: 'held'; reason: HoldReason; detail: string }
  | { kind: 'applied'; forced: boolean; outcome: ApplyOutcome };

export interface TickResult {
  /** Whether it acted, and why not when it did not. The fields below are the details the commands print. */
  verdict: TickVerdict;
  /** The config on the branch is invalid: nothing was gathered, planned or applied. */
  configInvalid: boolean;
  /** Config files with uncommitted edits: checked and planned, nothing applied; STATUS.md and events follow the committed config. */
  dirtyConfig: string[];
  /** The plan; with uncommitted edits, the plan of those edits (null when they are invalid). null when the committed config is invalid. */
  plan: Plan | null;
  blocked: string | null;
  /** Whether the plan was executed (not blocked, no uncommitted edits, valid config). */
  applied: boolean;
  outcome: ApplyOutcome | null;
  /** Names of the events detected this tick (delivered when notify is on). */
  events: string[];
  /** STATUS.md as rendered this tick. */
  status: string;
  /** The status report STATUS.md was rendered from (`status --json` of what was committed); null when the config is invalid. */
  report: StatusReport | null;
  /** The new commit, or null when STATUS.md and state.json were unchanged. */
  commit: string | null;
  pushed: boolean;
  /** Why the push failed (the commit is kept and pushed by a later tick); null otherwise. */
  pushError: string | null;
  /** The lease ran out, or would have during the apply: nothing applied (or nothing committed). */
  leaseLost: boolean;
  /** The GPUs by GPU-hour bucket as the tick left them, at the tick's time: what llmgw_gpu_seconds_total counts; absent when nothing was observed. */
  gpus?: { at: string; counts: GpuCounts };
}
