// The project phase (src/tick/README.md): pure. The fleet as this tick leaves
// it — the plan projected onto the fleet model by its effects — and what the
// tick writes from it: STATUS.md, the status report and .llmgw/observed.json.
// The tick projects what it did; `llmgw plan` projects what a tick that meets
// no error would do (expectedEffects). One projection, one renderer: the plan's
// "after" and the commit are the same bytes when the apply goes as planned.

import { emptyOutcome, type ApplyOutcome } from '../apply/outcome.js';
import { projectFleet, projectedSnapshot, type Effects } from '../plan/project-fleet.js';
import { withDrainMarks } from '../fleet/lifecycle.js';
import { type StatusReport } from '../status/index.js';
import { renderStatusMarkdown } from '../views/status/index.js';
import type { Fleet } from '../types/fleet.js';
import type { ClosedDaysHours } from '../types/gpu-hours.js';
import type { Snapshot } from '../types/snapshot.js';
import type { State } from '../types/state.js';
import type { Planned } from './plan.js';
import { statusOf } from './render.js';
import { lifecycleAfter, withLifecycle } from './lifecycle-state.js';
import { placementsOf, recordInventory, updateState } from './state.js';

export interface After {
  fleet: Fleet;
  /** The state given, with the placements of record of this fleet: what the tick commits as state.json. */
  state: State;
  /** What .llmgw/observed.json holds: the observation with this tick's effects (docs/protocol.md#the-snapshot). */
  snapshot: Snapshot;
  report: StatusReport;
  /** STATUS.md. */
  status: string;
}

/** What a tick applied: its effects, and the outcome (absent for a preview: a tick that meets no error). */
export interface AppliedEffects {
  effects: Effects;
  outcome?: ApplyOutcome;
}

/**
 * state.json as the tick leaves it, before notifications are recorded in it.
 * `applied`: null when the plan was not applied (blocked, held back).
 */
export function stateAfter(planned: Planned, applied: AppliedEffects | null = null): State {
  const outcome = applied?.outcome ?? emptyOutcome();
  const base = updateState(planned.state, { snapshot: planned.snapshot, outcome, now: new Date(planned.now), lostAfterMs: planned.config.cluster.lostAfterMs });
  const lifecycle = lifecycleAfter(planned.state.lifecycle, {
    config: planned.config,
    plan: planned.plan,
    fleet: planned.fleet,
    effects: applied?.effects ?? null,
    ...(applied?.outcome ? { outcome: applied.outcome } : {}),
    now: planned.now,
  });
  return recordInventory(withLifecycle(base, lifecycle), planned.snapshot, planned.config);
}

/**
 * `state` is what the tick commits as state.json (its start failures and unreachable times, its drains);
 * `gpuHours` the closed days' GPU-hours STATUS.md shows (src/tick/gpu-hours.ts), null for none.
 */
export function afterTick(planned: Planned, effects: Effects, state: State, gpuHours: ClosedDaysHours | null = null): After {
  // The drains are state.json's: the fleet as the tick leaves it marks those it began.
  const fleet = withDrainMarks(projectFleet(planned.fleet, effects), state);
  // Planned afresh even when nothing took effect: the committed state (a new
  // failed start) can steer placement, and `llmgw status` on the committed
  // files plans with exactly this state.
  const own = statusOf(fleet, state);
  const report = gpuHours === null ? own : { ...own, gpuHours };
  const placed = { ...state, placements: placementsOf(fleet, state.placements ?? {}) };
  return { fleet, state: placed, snapshot: projectedSnapshot(planned.snapshot, fleet), report, status: renderStatusMarkdown(report) };
}
