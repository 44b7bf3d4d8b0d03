// The plan phase of a tick (src/tick/README.md): pure. From what was observed
// and what state.json remembers, to the fleet model and the plan. `llmgw plan`,
// `llmgw apply` and the reconcile tick all plan through here, so the failed
// starts a report shows steer the preview's placement exactly as the tick's.

import { buildFleet } from '../fleet/build-fleet.js';
import { planFleet } from '../plan/plan-fleet.js';
import type { Config } from '../types/config.js';
import type { Fleet } from '../types/fleet.js';
import type { Plan } from '../types/plan.js';
import type { Snapshot } from '../types/snapshot.js';
import type { State } from '../types/state.js';
import { recordObservedFailures, recordQuarantines } from './state.js';

export interface TickInput {
  config: Config;
  snapshot: Snapshot;
  /** state.json as committed. */
  state: State;
  /** ISO time the fleet is judged at: the tick's observation time, or `--now`. */
  now: string;
}

export interface Planned extends TickInput {
  /** The committed state with the failed starts this snapshot shows recorded. */
  state: State;
  fleet: Fleet;
  plan: Plan;
}

export function planTick(input: TickInput): Planned {
  const state = recordQuarantines(recordObservedFailures(input.state, input.snapshot, new Date(input.now)), input);
  const fleet = buildFleet(input.config, input.snapshot, state, input.now);
  return { ...input, state, fleet, plan: planFleet(fleet, state) };
}
