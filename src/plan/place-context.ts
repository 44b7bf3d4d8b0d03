import type { ModelConfig } from '../types/config.js';
import type { Fleet } from '../types/fleet.js';
import type { Placement, WeightsLocality } from '../types/plan.js';
import type { FleetFit } from '../fleet/fit-report.js';
import type { Capacity } from './capacity.js';

/** What placing one model's missing replicas reads and changes. */
export interface PlaceContext {
  fleet: Fleet;
  capacity: Capacity;
  /** Nodes where this model failed to start within the last 30 minutes. */
  recentFailures(model: string): ReadonlySet<string>;
  /** What the fit rule reads (src/fleet/fit-report.ts); absent: nothing is judged. */
  fit?: FleetFit;
}

export interface Placed {
  placement: Placement[];
  port: number;
  weights: WeightsLocality;
}

/** The replicas that landed, and why the rest could not (null when all did). */
export interface PlaceResult {
  placed: Placed[];
  reason: string | null;
}

export function basePortOf(model: ModelConfig, fleet: Fleet): number {
  return fleet.config.cluster.engines[model.engine]?.basePort ?? 8000;
}

/** fabric -> replicas of the model staying or placed there so far, over the nodes that can take new ones. */
export function fabricCounts(model: string, ctx: PlaceContext): Map<string, number> {
  const counts = new Map<string, number>();
  for (const cap of ctx.capacity.nodes) {
    const n = cap.modelCount.get(model) ?? 0;
    if (n > 0) counts.set(cap.node.fabric, (counts.get(cap.node.fabric) ?? 0) + n);
  }
  return counts;
}
