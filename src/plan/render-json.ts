// docs/commands.md plan JSON: exactly the contract's fields, in its order, whatever
// else a plan object may carry in memory.

import type { Action, Plan } from '../types/plan.js';

function actionJson(a: Action): Record<string, unknown> {
  const placement = a.placement.map((p) => ({ node: p.node, gpus: [...p.gpus] }));
  if (a.op === 'start') {
    return { op: 'start', replica: a.replica, model: a.model, port: a.port, placement, weights: a.weights, reason: a.reason };
  }
  return { op: 'stop', replica: a.replica, model: a.model, placement, reason: a.reason, waitFor: [...a.waitFor] };
}

export function planJson(plan: Plan): Record<string, unknown> {
  return {
    version: 1,
    changes: plan.changes,
    blocked: plan.blocked,
    actions: plan.actions.map(actionJson),
    unplaceable: plan.unplaceable.map((u) => ({ model: u.model, missing: u.missing, reason: u.reason })),
  };
}

export function renderPlanJson(plan: Plan): string {
  return JSON.stringify(planJson(plan), null, 2) + '\n';
}
