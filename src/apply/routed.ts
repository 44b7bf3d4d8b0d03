// Which running replicas the routers' tables leave out (docs/safety.md#stopping-a-replica):
// one whose stop has begun (draining: it must never be put back by accident
// while its stop is still intended, whatever a table push before its stop
// did), and one whose answer check fails (it answers, but not correctly: it
// counts as down, so it gets no traffic until its check passes again).

import type { Fleet, FleetReplica } from '../types/fleet.js';

export function heldOut(r: FleetReplica): boolean {
  return Boolean(r.draining) || r.check?.ok === false;
}

/** Ids of the replicas the tables leave out even while they run. */
export function heldOutOfTables(fleet: Fleet): Set<string> {
  return new Set(fleet.replicas.filter(heldOut).map((r) => r.id));
}
