// Locality is a preference, never a filter (CONTRACT §6): a node holding the
// weights beats a node whose fabric holds them, which beats neither. A fabric
// holds weights when any of its nodes does (a shared filer and a local copy
// count the same); a node's own tier comes only from its own holdings, so a
// fabric-mate's local copy makes this node `fabric`, never `node`. A node never
// told to look holds nothing and ranks exactly like one that looked and found
// nothing.

import type { Fleet, FleetNode } from '../types/fleet.js';
import type { WeightsLocality } from '../types/plan.js';

export const TIER_RANK: Record<WeightsLocality, number> = { node: 0, fabric: 1, none: 2 };

export interface WeightsIndex {
  /** Fabrics holding the weights. */
  fabricsHolding(weights: string): ReadonlySet<string>;
  tier(node: FleetNode, weights: string): WeightsLocality;
}

export function weightsIndex(fleet: Fleet): WeightsIndex {
  const byWeights = new Map<string, Set<string>>();
  // A lost node's local copy cannot be copied from: it does not make its fabric a holder.
  for (const node of fleet.nodes) {
    if (node.condition === 'lost') continue;
    for (const w of node.holds) {
      const set = byWeights.get(w);
      if (set) set.add(node.fabric);
      else byWeights.set(w, new Set([node.fabric]));
    }
  }
  const none: ReadonlySet<string> = new Set();
  const fabricsHolding = (weights: string) => byWeights.get(weights) ?? none;
  return {
    fabricsHolding,
    tier(node, weights) {
      if (node.holds.has(weights)) return 'node';
      return fabricsHolding(weights).has(node.fabric) ? 'fabric' : 'none';
    },
  };
}
