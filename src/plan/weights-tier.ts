// Locality is a preference, never a filter (docs/placement.md): a node holding the
// weights beats a node whose fabric holds them, which beats neither. Whether a
// fabric holds them is the fleet model's answer (src/fleet/holdings.ts), the
// same one `holdings` in status shows; a node's own tier comes only from its
// own holdings, so a fabric-mate's local copy makes this node `fabric`, never
// `node`. A node never told to look holds nothing and ranks exactly like one
// that looked and found nothing.

import { fabricHolds } from '../fleet/index.js';
import type { Fleet, FleetNode } from '../types/fleet.js';
import type { WeightsLocality } from '../types/plan.js';

export const TIER_RANK: Record<WeightsLocality, number> = { node: 0, fabric: 1, none: 2 };

export function weightsTier(fleet: Fleet, node: FleetNode, weights: string): WeightsLocality {
  if (node.holds.has(weights)) return 'node';
  return fabricHolds(fleet, node.fabric, weights) ? 'fabric' : 'none';
}
