// Step 2 of docs/placement.md, surplus: when more replicas are kept than desired,
// which go. In order:
//   1. those on a node that was unreachable or lost within the last lostAfter
//      (state.json: its outage is open, or ended less than lostAfter ago). A
//      node that just flapped is the likelier to flap again, and the copy it
//      brought back is the one the fleet did without;
//   2. those sharing a node with another kept replica of the model: stopping
//      one of a pair spreads what stays (docs/placement.md#spread);
//   3. the longest unused. Unknown idleness counts as just used — never as
//      the oldest — so a replica is only chosen for idleness the routers proved;
//   then the highest n of `<model>-<n>`.
// Chosen one at a time, so a pair stops being a pair once one of it is chosen.
//
// A multi-node replica with ranks missing (its other ranks were stopped when a
// node was lost, and that node came back) cannot serve: it goes first, and if
// it is not surplus it is stopped anyway and counts for nothing.

import type { Fleet, FleetReplica } from '../types/fleet.js';
import type { StopAction } from '../types/plan.js';
import type { State } from '../types/state.js';
import type { ModelReplicas } from './classify.js';
import { MinHeap } from './heap.js';
import { stopAction } from './classify.js';
import { compareNames, replicaNumber } from './replica-ids.js';

/** The surplus order of step 3: known idleness longest first, then the highest n of `<model>-<n>`. */
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

/** Nodes whose outage is open in state.json, or ended less than lostAfter ago: "just back" when they answer. */
export function recentlyDown(fleet: Fleet, state: State | undefined): ReadonlySet<string> {
  const out = new Set<string>();
  if (!state) return out;
  const now = Date.parse(fleet.now);
  const lostAfter = fleet.config.cluster.lostAfterMs;
  for (const node of Object.keys(state.unreachableSince)) out.add(node);
  for (const [node, at] of Object.entries(state.outageEnded ?? {})) if (now - Date.parse(at) < lostAfter) out.add(node);
  return out;
}

/**
 * Stops the surplus of one model, and any replica left with ranks missing, and
 * removes them from its kept list. Replicas on unreachable nodes are never
 * chosen: they are left alone until lost.
 */
export function stopSurplus(group: ModelReplicas, fleet: Fleet, recent: ReadonlySet<string> = new Set()): StopAction[] {
  const desired = group.model.replicas;
  const keptCount = group.kept.length;
  const incomplete = (r: FleetReplica) => !r.unreachable && r.ranks.length < group.model.nodes;
  if (keptCount <= desired && !group.kept.some(incomplete)) return [];
  const order = surplusOrder(group.model.name);
  const candidates = group.kept.filter((r) => !r.unreachable);
  // Every kept replica of the model shares nodes, the unreachable too: a pair is a pair wherever it is.
  const perNode = new Map<string, number>();
  for (const r of group.kept) for (const n of r.nodes) perNode.set(n, (perNode.get(n) ?? 0) + 1);
  const back = (r: FleetReplica) => (r.nodes.some((n) => recent.has(n)) ? 1 : 0);
  const shared = (r: FleetReplica) => (r.nodes.some((n) => (perNode.get(n) ?? 0) > 1) ? 1 : 0);
  const first = (a: FleetReplica, b: FleetReplica, sa: number, sb: number) =>
    Number(incomplete(b)) - Number(incomplete(a)) || back(b) - back(a) || sb - sa || order(a, b);
  // A heap with the sharing as it was when pushed: choosing one of a pair only
  // ever moves the other later, so a stale entry is re-pushed when it surfaces.
  const heap = new MinHeap<{ r: FleetReplica; shared: number }>(
    (a, b) => first(a.r, b.r, a.shared, b.shared) < 0,
    candidates.map((r) => ({ r, shared: shared(r) })),
  );
  const surplus: FleetReplica[] = [];
  const want = Math.max(0, keptCount - desired);
  while (surplus.length < want) {
    const top = heap.pop();
    if (!top) break;
    const now = shared(top.r);
    if (now !== top.shared) {
      heap.push({ r: top.r, shared: now });
      continue;
    }
    surplus.push(top.r);
    for (const n of top.r.nodes) perNode.set(n, (perNode.get(n) ?? 0) - 1);
  }
  const chosen = new Set(surplus);
  const stops = surplus.map((r) => stopAction(r, `surplus (${keptCount} of ${desired})`, [], fleet));
  for (const r of candidates.filter((c) => !chosen.has(c) && incomplete(c)).sort(order)) {
    stops.push(stopAction(r, `incomplete (ranks on ${r.ranks.length} of ${group.model.nodes} nodes)`, [], fleet));
  }
  const stopped = new Set(stops.map((s) => s.replica));
  group.kept = group.kept.filter((r) => !stopped.has(r.id));
  return stops;
}
