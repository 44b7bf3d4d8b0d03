// `llmgw plan` (and the plan `llmgw apply` shows): the tick's pure phases —
// plan, project, render — without the apply. The "after" is the projection of
// what a tick that meets no error does (src/apply/schedule.ts expectedEffects),
// rendered by the very function the tick commits with, so a PR's plan shows the
// STATUS.md that merging it commits.

import { expectedEffects } from '../apply/schedule.js';
import { attribute } from '../plan/cause.js';
import { NO_EFFECTS } from '../plan/project-fleet.js';
import { OBSERVED_LABEL, statusDiff } from '../views/plan/status-diff.js';
import type { Plan } from '../types/plan.js';
import { afterTick, stateAfter, type After } from './after.js';
import { carriedGpuHours } from './gpu-hours.js';
import type { Planned } from './plan.js';
import { statusMarkdown } from './render.js';

export interface Before {
  /** STATUS.md as readers see it today (REF's, or the working tree's). */
  text: string;
  /** How the diff names it: `STATUS.md (origin/main)`. */
  label: string;
}

export interface PreviewOptions {
  /** null: there is no STATUS.md to start from; the fleet as observed is rendered instead. */
  before: Before | null;
  /** REF's config planned on the same snapshot, state and time: what decides each action's cause. */
  base: Plan | null;
  /** Models whose spec differs from REF's: their starts are this change's even where REF starts the same id. */
  respecced?: ReadonlySet<string>;
  /** `llmgw apply --force`: a blocked plan is applied all the same, so its after is projected too. */
  force?: boolean;
}

export interface Preview {
  planned: Planned;
  /** The plan, each action with its cause. */
  plan: Plan;
  /** The fleet as this tick leaves it: a blocked plan is not applied, so then it is the fleet as observed. */
  after: After;
  /** Unified diff of STATUS.md, before -> after; '' when unchanged. */
  diff: string;
}

export function previewTick(planned: Planned, opts: PreviewOptions): Preview {
  const applies = planned.plan.blocked === null || opts.force === true;
  const effects = applies ? expectedEffects(planned.plan, planned.fleet) : NO_EFFECTS;
  // GPU-hours are copied from the STATUS.md the plan starts from: a PR checkout may have no history to count.
  const after = afterTick(planned, effects, stateAfter(planned, applies ? { effects } : null), carriedGpuHours(opts.before?.text ?? null, planned.now));
  const before = opts.before ?? { text: statusMarkdown(planned.fleet, planned.state, planned.plan), label: OBSERVED_LABEL };
  return { planned, plan: attribute(planned.plan, opts.base, opts.respecced), after, diff: statusDiff(before.text, after.status, before.label) };
}
