// A model that cannot be placed only because draining replicas still hold the
// GPUs it needs is not unplaceable: it lands once those drains end (a tick or
// two, at most drainTimeout). Reporting it — and firing model.unplaceable —
// on every swap of one model for another would cry wolf. So when a plan
// leaves models unplaceable while drains hold GPUs, the same placements are
// tried once more as if every drain were over; only what fails there too is
// unplaceable. Pure, and only run in that case.

import type { FleetFit } from '../fleet/fit-report.js';
import type { ModelConfig } from '../types/config.js';
import type { Fleet } from '../types/fleet.js';
import type { Unplaceable } from '../types/plan.js';
import type { State } from '../types/state.js';
import { buildCapacity } from './capacity.js';
import { placeModel } from './place-model.js';
import { recentFailedPorts, recentFailures } from './recent-failures.js';

/** One model's placement request of a plan, in placement order. */
export interface Asked {
  model: ModelConfig;
  count: number;
}

/** The entries of `unplaceable` that would stay so with the GPUs of `freed` (stops and drains alike) free. */
export function waitingForDrains(
  fleet: Fleet,
  state: State,
  asked: readonly Asked[],
  unplaceable: Unplaceable[],
  freed: ReadonlySet<string>,
  fit?: FleetFit,
): Unplaceable[] {
  const ctx = {
    fleet,
    capacity: buildCapacity(fleet, freed, recentFailedPorts(state, fleet.now)),
    recentFailures: recentFailures(state, fleet.now),
    ...(fit ? { fit } : {}),
  };
  const short = new Set<string>();
  for (const a of asked) {
    if (placeModel(a.model, a.count, ctx).placed.length < a.count) short.add(a.model.name);
  }
  return unplaceable.filter((u) => short.has(u.model));
}
