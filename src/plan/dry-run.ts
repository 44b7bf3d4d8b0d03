// `llmgw plan` up to rendering: the same fleet model, planner and STATUS.md
// renderer a reconcile uses, stopping before anything is touched. The diff is
// from STATUS.md of the fleet as observed to STATUS.md of the fleet as the
// plan leaves it. Pure: the caller reads the files.

import { buildFleet } from '../fleet/build-fleet.js';
import { renderStatusMarkdown, summarize } from '../status/index.js';
import type { Config } from '../types/config.js';
import type { Fleet } from '../types/fleet.js';
import type { Plan } from '../types/plan.js';
import type { Snapshot } from '../types/snapshot.js';
import type { State } from '../types/state.js';
import { planFleet } from './plan-fleet.js';
import { projectSnapshot } from './project-snapshot.js';
import { statusDiff } from './status-diff.js';

export interface DryRun {
  fleet: Fleet;
  plan: Plan;
  /** Unified diff of STATUS.md, observed -> planned; '' when unchanged. */
  diff: string;
}

export function dryRun(config: Config, snapshot: Snapshot, state: State, now: string): DryRun {
  const fleet = buildFleet(config, snapshot, state, now);
  const plan = planFleet(fleet, state);
  const observed = renderStatusMarkdown(summarize(fleet, plan.unplaceable));
  const plannedFleet = buildFleet(config, projectSnapshot(snapshot, plan, config), state, now);
  const planned = renderStatusMarkdown(summarize(plannedFleet, plan.unplaceable));
  return { fleet, plan, diff: statusDiff(observed, planned) };
}
