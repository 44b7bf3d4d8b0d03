// The render phase (src/tick/README.md): pure. The status of a fleet is its
// numbers plus what its own plan says cannot be placed or is blocked, so
// STATUS.md of a tick, `llmgw status` on the committed snapshot, and a plan's
// "after" are one function of (config, fleet, state) and cannot disagree.

import { planFleet } from '../plan/plan-fleet.js';
import { summarize, type StatusReport } from '../status/index.js';
import { renderStatusMarkdown } from '../views/status/index.js';
import type { Fleet } from '../types/fleet.js';
import type { Plan } from '../types/plan.js';
import type { State } from '../types/state.js';

/** The status report of a fleet; `plan` when the caller has already planned this very fleet and state. */
export function statusOf(fleet: Fleet, state: State, plan?: Plan): StatusReport {
  const own = plan ?? planFleet(fleet, state);
  return summarize(fleet, own.unplaceable, own.blocked, own.rollouts, state.scaling, state.everRunning);
}

export function statusMarkdown(fleet: Fleet, state: State, plan?: Plan): string {
  return renderStatusMarkdown(statusOf(fleet, state, plan));
}
