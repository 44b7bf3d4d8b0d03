// The first edition's entry to `llmgw plan`'s pure part, kept for its callers
// (tests, benchmarks): it is now the tick's own plan, project and render
// phases (src/tick/preview.ts), with "before" the fleet as observed.

import { planTick } from '../tick/plan.js';
import { previewTick, type Preview } from '../tick/preview.js';
import type { Config } from '../types/config.js';
import type { Fleet } from '../types/fleet.js';
import type { Plan } from '../types/plan.js';
import type { Snapshot } from '../types/snapshot.js';
import type { State } from '../types/state.js';

export interface DryRun {
  fleet: Fleet;
  plan: Plan;
  /** Unified diff of STATUS.md, observed -> planned; '' when unchanged. */
  diff: string;
  after: Preview['after'];
}

export function dryRun(config: Config, snapshot: Snapshot, state: State, now: string): DryRun {
  const p = previewTick(planTick({ config, snapshot, state, now }), { before: null, base: null });
  return { fleet: p.planned.fleet, plan: p.plan, diff: p.diff, after: p.after };
}
