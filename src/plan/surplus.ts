// Step 2 of docs/placement.md, surplus: when more replicas are kept than desired, the
// ones unused longest go first. Unknown idleness counts as just used — never as
// the oldest — so a replica is only chosen for idleness the routers proved.
//
// A multi-node replica with ranks missing (its other ranks were stopped when a
// node was lost, and that node came back) cannot serve: it goes first, and if
// it is not surplus it is stopped anyway and counts for nothing.

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
 * Stops the surplus of one model, and any replica left with ranks missing, and
 * removes them from its kept list. Replicas on unreachable nodes are never
 * chosen: they are left alone until lost.
 */
export function stopSurplus(group: ModelReplicas, fleet: Fleet): StopAction[] {
  const desired = group.model.replicas;
  const keptCount = group.kept.length;
  const incomplete = (r: FleetReplica) => !r.unreachable && r.ranks.length < group.model.nodes;
  if (keptCount <= desired && !group.kept.some(incomplete)) return [];
  const order = surplusOrder(group.model.name);
  const candidates = group.kept.filter((r) => !r.unreachable).sort((a, b) => Number(incomplete(b)) - Number(incomplete(a)) || order(a, b));
  const surplus = candidates.slice(0, Math.max(0, keptCount - desired));
  const stops = surplus.map((r) => stopAction(r, `surplus (${keptCount} of ${desired})`, [], fleet));
  for (const r of candidates.slice(surplus.length).filter(incomplete)) {
    stops.push(stopAction(r, `incomplete (ranks on ${r.ranks.length} of ${group.model.nodes} nodes)`, [], fleet));
  }
  const stopped = new Set(stops.map((s) => s.replica));
  group.kept = group.kept.filter((r) => !stopped.has(r.id));
  return stops;
}
