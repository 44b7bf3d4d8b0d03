// What one tick did, as plain data: the reconcile command prints it, the run
// loop logs it, the demo and the tests read it.

import type { ApplyOutcome } from '../apply/outcome.js';
import type { StatusReport } from '../status/index.js';
import type { Plan } from '../types/plan.js';

export interface TickResult {
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
}

export interface ReplicaCounts {
  running: number;
  starting: number;
  failed: number;
}

/**
 * The commit message: what was applied, in one line (`llmgw: started 2,
 * stopped 1 (prod-eu)`); when nothing was, where the replicas stand
 * (`llmgw: status: 7 running (prod-eu)`).
 */
export function commitMessage(
  cluster: string | null,
  r: Pick<TickResult, 'configInvalid' | 'dirtyConfig' | 'blocked' | 'outcome'>,
  counts?: ReplicaCounts,
): string {
  const where = cluster ? ` (${cluster})` : '';
  if (r.configInvalid) return `llmgw: config invalid, nothing applied${where}`;
  if (r.dirtyConfig.length > 0) return `llmgw: uncommitted edits to ${r.dirtyConfig.join(', ')}, nothing applied${where}`;
  if (r.blocked !== null) return `llmgw: plan blocked, nothing applied${where}`;
  const o = r.outcome;
  const parts: string[] = [];
  if (o && o.started > 0) parts.push(`started ${o.started}`);
  if (o && o.stopped > 0) parts.push(`stopped ${o.stopped}`);
  if (o && (o.drained ?? 0) > 0) parts.push(`draining ${o.drained}`);
  if (o && o.failed > 0) parts.push(`${o.failed} failed`);
  if (o && o.deferred > 0) parts.push(`${o.deferred} waiting`);
  if (parts.length > 0) return `llmgw: ${parts.join(', ')}${where}`;
  const states = counts ? (['running', 'starting', 'failed'] as const).filter((k) => counts[k] > 0).map((k) => `${counts[k]} ${k}`) : [];
  return `llmgw: status${counts ? `: ${states.length > 0 ? states.join(', ') : 'no replicas'}` : ''}${where}`;
}
