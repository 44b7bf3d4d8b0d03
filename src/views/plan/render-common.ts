// Small pieces every plan renderer shares.

import type { StatusReport } from '../../status/types.js';
import type { Action, Placement, Plan, PlanJob } from '../../types/plan.js';
import { causeOf } from '../../plan/cause.js';
import type { SpecArgv } from '../../plan/new-specs.js';

/** What a plan is shown with, beyond the plan and its STATUS.md diff (`llmgw plan --base`). */
export interface PlanContext {
  /** The ref the plan was compared with (`--base`); null without one: then every action is this plan's. */
  base: string | null;
  /** Sentences for the top of every format (a branch that edits llmgw's generated files, REF's config invalid). */
  warnings: string[];
  /** A sentence in place of a plan (a repo never observed); null when there is a plan. */
  notice: string | null;
  /** The argv of every new or changed spec, once per model. */
  specs: SpecArgv[];
  /** The status JSON of the fleet as this tick leaves it; null when there is no plan. */
  after: StatusReport | null;
}

export const NO_CONTEXT: PlanContext = { base: null, warnings: [], notice: null, specs: [], after: null };

export function withContext(ctx: Partial<PlanContext> | undefined): PlanContext {
  const merged = { ...NO_CONTEXT, ...ctx };
  // A `survive:` the fleet as the tick leaves it breaks heads every format too.
  const own = (merged.after?.surviveWarnings ?? []).filter((w) => !merged.warnings.includes(w));
  return own.length > 0 ? { ...merged, warnings: [...merged.warnings, ...own] } : merged;
}

/**
 * The context for the formats a person reads (text, Markdown): also the
 * warnings of models whose size is unknown (docs/placement.md#will-it-fit),
 * which JSON keeps in `after.fitWarnings` where a program looks for them.
 */
export function withReadersContext(ctx: Partial<PlanContext> | undefined): PlanContext {
  const merged = withContext(ctx);
  const fit = (merged.after?.fitWarnings ?? []).filter((w) => !merged.warnings.includes(w));
  return fit.length > 0 ? { ...merged, warnings: [...merged.warnings, ...fit] } : merged;
}

/**
 * `fits H100 (3 full-length sequences), does not fit A100`: the model's fit on
 * every class it may use (docs/placement.md#will-it-fit); `size unknown` when
 * nothing says how big its weights are; null when the report has no fit for it.
 */
export function fitSummary(ctx: PlanContext, model: string): string | null {
  const fit = ctx.after?.fit?.[model];
  if (fit === undefined) return null;
  if (fit === null) return 'size unknown';
  const parts = Object.entries(fit).map(([cls, f]) =>
    !f.fits ? `does not fit ${cls}` : f.sequences === null ? `fits ${cls}` : `fits ${cls} (${f.sequences} full-length sequence${f.sequences === 1 ? '' : 's'})`,
  );
  return parts.length > 0 ? parts.join(', ') : null;
}

/**
 * One Slurm job of a jobs-mode plan (docs/slurm.md#jobs-mode-mode-jobs), by its name:
 * `sbatch llmgw/m-abc12/0 on gpu-a01 (--gres=gpu:2)`, `scancel llmgw/m-abc12/0 (job 17) on gpu-a01`.
 */
export function jobText(j: PlanJob): string {
  return j.op === 'submit' ? `sbatch ${j.name} on ${j.node} (--gres=gpu:${j.gpus})` : `scancel ${j.name} (job ${j.id ?? '?'}) on ${j.node}`;
}

/** [0,1,2,3,6] -> "0-3,6" */
export function indexRanges(indices: readonly number[]): string {
  // Runs of consecutive indices, each [first, last].
  const runs: [number, number][] = [];
  for (const n of indices) {
    const run = runs.at(-1);
    if (run !== undefined && n === run[1] + 1) run[1] = n;
    else runs.push([n, n]);
  }
  return runs.map(([lo, hi]) => (hi > lo ? `${lo}-${hi}` : `${lo}`)).join(',');
}

/** gpu-a01[0-3],gpu-a02[0-3] */
export function placementText(placement: readonly Placement[]): string {
  return placement.map((p) => `${p.node}[${indexRanges(p.gpus)}]`).join(',');
}

export interface PlanCounts {
  start: number;
  stop: number;
  /** Replicas that cannot be placed, over all unplaceable models. */
  unplaceable: number;
}

export function planCounts(plan: Plan): PlanCounts {
  return {
    start: plan.actions.filter((a) => a.op === 'start').length,
    stop: plan.actions.filter((a) => a.op === 'stop').length,
    unplaceable: plan.unplaceable.reduce((n, u) => n + u.missing, 0),
  };
}

/** "Plan: 3 to start, 1 to stop, 1 cannot be placed." or "No changes. The fleet matches models.yaml." */
export function summaryLine(plan: Plan): string {
  const c = planCounts(plan);
  if (c.start === 0 && c.stop === 0 && c.unplaceable === 0) return 'No changes. The fleet matches models.yaml.';
  return `Plan: ${c.start} to start, ${c.stop} to stop, ${c.unplaceable} cannot be placed.`;
}

/** Starts, then stops: the order every renderer lists a group of actions in. */
export function startsThenStops(actions: readonly Action[]): Action[] {
  return [...actions.filter((a) => a.op === 'start'), ...actions.filter((a) => a.op === 'stop')];
}

/** This change's actions and those already pending on the base, each starts first. */
export function byCause(plan: Plan): { change: Action[]; pending: Action[] } {
  return {
    change: startsThenStops(plan.actions.filter((a) => causeOf(a) === 'change')),
    pending: startsThenStops(plan.actions.filter((a) => causeOf(a) === 'pending')),
  };
}

/** "2 caused by this change, 3 already pending on origin/main." */
export function causeLine(plan: Plan, base: string): string {
  const { change, pending } = byCause(plan);
  return `${change.length} caused by this change, ${pending.length} already pending on ${base}.`;
}

/** The reason, with the wait spelled out for a replacement's stop, and the drain for a stop that drains first. */
export function actionWhy(action: Action): string {
  if (action.op === 'start') return action.reason;
  const drain = action.phase === 'drain' ? '; out of every router now, stopped once drained' : '';
  if (action.waitFor.length === 0) return `${action.reason}${drain}`;
  const list = action.waitFor.join(', ');
  return `${action.reason}; after ${list} ${action.waitFor.length === 1 ? 'is' : 'are'} running${drain}`;
}

/** How a stop's row is headed: `drain` when this tick only takes it out of the routers. */
export function stopVerb(action: Action): 'start' | 'stop' | 'drain' {
  return action.op === 'start' ? 'start' : action.phase === 'drain' ? 'drain' : 'stop';
}

/** A sentence ends with one full stop. */
export function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

/** An argv as a shell would take it back: plain words bare, anything else in single quotes. */
export function argvText(argv: readonly string[]): string {
  return argv.map((a) => (/^[A-Za-z0-9_@%+=:,./{}-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}
