// docs/commands.md plan JSON: the contract's fields in its order, each action
// with its cause, and "after" (the status JSON of the fleet as this tick
// leaves it); `warnings`, `notice` and `base` come first, as a reader of any
// format sees warnings first. Nothing else a plan object carries in memory.

import type { Action, Plan } from '../../types/plan.js';
import { escapeJsonText } from '../../text/terminal-text.js';
import { causeOf } from '../../plan/cause.js';
import { withContext, type PlanContext } from './render-common.js';

function actionJson(a: Action): Record<string, unknown> {
  const placement = a.placement.map((p) => ({ node: p.node, gpus: [...p.gpus] }));
  if (a.op === 'start') {
    return { op: 'start', replica: a.replica, model: a.model, port: a.port, placement, weights: a.weights, reason: a.reason, cause: causeOf(a) };
  }
  // `phase` only for a stop that drains first: a plain stop reads as it always did.
  const phase = a.phase === 'drain' ? { phase: 'drain' } : {};
  return { op: 'stop', replica: a.replica, model: a.model, placement, reason: a.reason, waitFor: [...a.waitFor], ...phase, cause: causeOf(a) };
}

export function planJson(plan: Plan, context?: Partial<PlanContext>): Record<string, unknown> {
  const ctx = withContext(context);
  return {
    version: 1,
    warnings: [...ctx.warnings],
    notice: ctx.notice,
    base: ctx.base,
    changes: plan.changes,
    blocked: plan.blocked,
    actions: plan.actions.map(actionJson),
    unplaceable: plan.unplaceable.map((u) => ({ model: u.model, missing: u.missing, reason: u.reason })),
    // Only while a rollout is under way or failed: a plan without one reads as it always did.
    ...((plan.rollouts ?? []).length > 0
      ? { rollouts: (plan.rollouts ?? []).map((r) => ({ model: r.model, spec: r.spec, stage: r.stage, text: r.text })) }
      : {}),
    // Jobs mode only: the Slurm jobs it submits and cancels, by name.
    ...(plan.slurmJobs !== undefined ? { slurmJobs: plan.slurmJobs.map((j) => ({ ...j })) } : {}),
    // The fleet as this tick leaves it decides fit and survive: lifted from `after` to the top level.
    ...(ctx.after?.fit ? { fit: ctx.after.fit } : {}),
    ...(ctx.after?.survive ? { survive: ctx.after.survive } : {}),
    after: ctx.after,
  };
}

export function renderPlanJson(plan: Plan, context?: Partial<PlanContext>): string {
  return escapeJsonText(JSON.stringify(planJson(plan, context), null, 2)) + '\n';
}
