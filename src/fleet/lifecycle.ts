// Which replicas are draining (docs/safety.md#stopping-a-replica): a stop that has begun
// is remembered in state.json, because the replica looks the same to its node
// before and after it left the routers' tables. The fleet model marks each one
// from there, so status, STATUS.md and the planner all see it draining until a
// tick stops it — and a restarted reconciler continues the drain it finds.

import type { DrainMark, Fleet, FleetReplica } from '../types/fleet.js';
import type { State } from '../types/state.js';

/** replica id -> its drain, from state.json; null for a replica whose stop has not begun. */
export function drainMarkOf(state: State): (id: string) => DrainMark | null {
  const draining = state.lifecycle?.draining ?? {};
  return (id) => {
    const e = Object.hasOwn(draining, id) ? draining[id] : undefined;
    if (e === undefined) return null;
    return { since: e.since, reason: e.reason, outOfTablesAt: e.outOfTablesAt ?? null };
  };
}

function sameMark(a: DrainMark | null | undefined, b: DrainMark | null): boolean {
  if (!a || !b) return (a ?? null) === b;
  return a.since === b.since && a.reason === b.reason && a.outOfTablesAt === b.outOfTablesAt;
}

/** The fleet with every replica's drain as `state` records it (the fleet itself when nothing differs). */
export function withDrainMarks(fleet: Fleet, state: State): Fleet {
  const markOf = drainMarkOf(state);
  if (fleet.replicas.every((r) => sameMark(r.draining, markOf(r.id)))) return fleet;
  const replicas = fleet.replicas.map((r): FleetReplica => (sameMark(r.draining, markOf(r.id)) ? r : { ...r, draining: markOf(r.id) }));
  return { ...fleet, replicas, replicaById: new Map(replicas.map((r) => [r.id, r])) };
}
