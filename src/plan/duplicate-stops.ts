// Stopping the copies of a replica id that run where it is not (docs/safety.md#one-replica-id-in-one-place):
// each is a stop of that id on the duplicate's nodes only. When the plan
// stops the replica itself anyway, its stop takes the duplicate's nodes too, so
// one id never has two stops (results are keyed by op and id).

import type { Fleet } from '../types/fleet.js';
import type { Action, StopAction } from '../types/plan.js';

function describe(nodes: string[]): string {
  return nodes.length === 0 ? 'nowhere that answers' : nodes.join(', ');
}

/** The actions with every duplicate's stop added. Only ranks on reachable nodes can be told to stop. */
export function withDuplicateStops(fleet: Fleet, actions: Action[]): Action[] {
  const out = [...actions];
  for (const d of fleet.duplicates ?? []) {
    const placement = d.ranks.filter((r) => fleet.nodeByName.get(r.node)?.condition === 'reachable').map((r) => ({ node: r.node, gpus: [...r.gpus] }));
    if (placement.length === 0) continue;
    const i = out.findIndex((a) => a.op === 'stop' && a.replica === d.replica);
    if (i >= 0) {
      const stop = out[i] as StopAction;
      out[i] = { ...stop, placement: [...stop.placement, ...placement] };
      continue;
    }
    // No `phase`: a duplicate's stop never drains. The routers' in-flight
    // count for this id is the record copy's, which no table leaves.
    out.push({
      op: 'stop',
      replica: d.replica,
      model: d.model,
      placement,
      reason: `duplicate: ${d.replica} runs on ${describe(d.recordNodes)} (its placement of record)`,
      waitFor: [],
      duplicate: true,
    });
  }
  return out;
}

/** A stop that only removes a duplicate: the replica it names is not touched. */
export function isDuplicateStop(a: Action): boolean {
  return a.op === 'stop' && a.duplicate === true;
}
