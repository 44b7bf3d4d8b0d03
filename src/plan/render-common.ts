// Small pieces every plan renderer shares.

import type { Action, Placement, Plan } from '../types/plan.js';

/** [0,1,2,3,6] -> "0-3,6" */
export function indexRanges(indices: readonly number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < indices.length; ) {
    let j = i;
    while (j + 1 < indices.length && indices[j + 1] === indices[j]! + 1) j++;
    parts.push(j > i ? `${indices[i]}-${indices[j]}` : `${indices[i]}`);
    i = j + 1;
  }
  return parts.join(',');
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

/** The reason, with the wait spelled out for a replacement's stop. */
export function actionWhy(action: Action): string {
  if (action.op === 'start' || action.waitFor.length === 0) return action.reason;
  const list = action.waitFor.join(', ');
  return `${action.reason}; after ${list} ${action.waitFor.length === 1 ? 'is' : 'are'} running`;
}

/** A sentence ends with one full stop. */
export function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}
