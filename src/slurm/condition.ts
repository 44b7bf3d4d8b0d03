// Whether Slurm keeps llmgw off a node (docs/slurm.md), in Slurm's own words:
// a state or flag Slurm gives a node it will not run new work on, a reservation
// active now that is not llmgw's, a node outside `slurm.partition`, or a Slurm
// llmgw has not heard from for lostAfter (unknown).

import type { SlurmView } from '../types/snapshot.js';

export interface SlurmCondition {
  /** Slurm's state and flags (`idle+drain`), or `unknown`. */
  state: string;
  /** Slurm's reason, or which reservation, or why unknown. */
  reason: string;
}

/**
 * The words of a state (base or flag) that make a node unplaceable. 22.05's JSON
 * says DRAIN and MAINTENANCE where sinfo's text says drained/draining and maint;
 * both spellings are here.
 */
const UNPLACEABLE = new Set(['down', 'drain', 'drained', 'draining', 'fail', 'failing', 'maint', 'maintenance']);

function activeAt(r: { start: string | null; end: string | null; active: boolean }, now: Date): boolean {
  if (r.start === null || r.end === null) return r.active;
  const t = now.getTime();
  return Date.parse(r.start) <= t && t < Date.parse(r.end);
}

/** null: Slurm lets llmgw place on `node` (cluster.yaml's name); otherwise the condition and its words. */
export function slurmConditionOf(view: SlurmView | undefined, node: string, now: Date): SlurmCondition | null {
  if (view === undefined) return null;
  const entry = Object.hasOwn(view.nodes, node) ? view.nodes[node] : undefined;
  if (entry === undefined) {
    if (!view.reachable) return { state: 'unknown', reason: `Slurm unreachable since ${view.unreachableSince ?? 'unknown'}: ${view.error ?? 'no answer'}` };
    if (view.partition !== undefined) return { state: 'unknown', reason: `Slurm does not list this node in partition ${view.partition}` };
    return null;
  }
  const reservation = (entry.reservations ?? []).find((r) => activeAt(r, now));
  const inReservation = reservation === undefined ? '' : `reservation ${reservation.name}${reservation.flags.includes('maint') ? ' (maint)' : ''}`;
  // A maintenance reservation shows as a flag, often with no reason of its own: the reservation is the reason then.
  if (entry.state.split('+').some((w) => UNPLACEABLE.has(w))) return { state: entry.state, reason: entry.reason || inReservation };
  if (reservation !== undefined) return { state: entry.state, reason: inReservation };
  if (view.partition !== undefined && !entry.partitions.includes(view.partition)) {
    return { state: entry.state, reason: `not in partition ${view.partition}` };
  }
  return null;
}

/** Every node of `nodes` (cluster.yaml's names) in the condition, in that order: status JSON's `nodes.slurm`. */
export function slurmConditions(view: SlurmView | undefined, nodes: readonly string[], now: Date): { node: string; state: string; reason: string }[] {
  return nodes.flatMap((node) => {
    const c = slurmConditionOf(view, node, now);
    return c === null ? [] : [{ node, state: c.state, reason: c.reason }];
  });
}
