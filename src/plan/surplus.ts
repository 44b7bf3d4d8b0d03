// Step 2 of CONTRACT §6, surplus: when more replicas are kept than desired, the
// ones unused longest go first. Unknown idleness counts as just used — never as
// the oldest — so a replica is only chosen for idleness the routers proved.

import type { Fleet, FleetReplica } from '../types/fleet.js';
import type { StopAction } from '../types/plan.js';
import type { ModelReplicas } from './classify.js';
import { stopAction } from './classify.js';
import { compareNames, replicaNumber } from './replica-ids.js';

/** The surplus order: known idleness longest first, then the highest n of `<model>-<n>`. */
export function surplusOrder(model: string): (a: FleetReplica, b: FleetReplica) => number {
  return (a, b) => {
    const ia = a.idleSeconds ?? 0;
    const ib = b.idleSeconds ?? 0;
    if (ia !== ib) return ib - ia;
    const na = replicaNumber(a.id, model);
    const nb = replicaNumber(b.id, model);
    if (na !== nb) return nb - na;
    return compareNames(b.id, a.id);
  };
}

/**
 * Stops the surplus of one model and removes them from its kept list. Replicas
 * on unreachable nodes are never chosen: they are left alone until lost.
 */
export function stopSurplus(group: ModelReplicas, fleet: Fleet): StopAction[] {
  const desired = group.model.replicas;
  const keptCount = group.kept.length;
  if (keptCount <= desired) return [];
  const candidates = group.kept.filter((r) => !r.unreachable).sort(surplusOrder(group.model.name));
  const chosen = candidates.slice(0, keptCount - desired);
  const chosenIds = new Set(chosen.map((r) => r.id));
  group.kept = group.kept.filter((r) => !chosenIds.has(r.id));
  return chosen.map((r) => stopAction(r, `surplus (${keptCount} of ${desired})`, [], fleet));
}
