// When a stop takes nothing from service (docs/config.md#on-demand-models): the
// replica's known idleness. Shared by the blast-radius guard and the eviction
// choice, so a replica evicted as idle is the one the guard lets go as idle.

import type { Fleet, FleetReplica } from '../types/fleet.js';

/**
 * Idle enough to stop without counting against service (docs/config.md#on-demand-models):
 * unused for `idle.after`, or for the model's own `scaleDownAfter` when shorter. Unknown is never idle.
 */
export function idleEnough(fleet: Fleet, r: FleetReplica): boolean {
  if (r.idleSeconds === null) return false;
  const model = fleet.config.models.find((m) => m.name === r.model);
  const idleAfter = fleet.config.cluster.idleAfterMs;
  const own = model?.scale?.scaleDownAfterMs;
  return r.idleSeconds * 1000 >= (own === undefined ? idleAfter : Math.min(own, idleAfter));
}
