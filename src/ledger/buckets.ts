// One commit's GPUs by GPU-hour bucket (docs/commands.md#llmgw-report). The GPU's
// bucket is the fleet model's own (src/fleet/gpus.ts, the one STATUS.md counts
// with), so a GPU-hour means what a STATUS.md row means; only a `used` GPU is
// split further, by what its replica did with it. Unknown idleness is serving,
// never idle: one router restart must not turn a busy fleet's hours into waste.

import { countedState } from '../fleet/index.js';
import type { Fleet, FleetNode, FleetReplica } from '../types/fleet.js';

/** What a model's GPUs did: served (or may have), sat idle, or were held while starting, draining or failed. */
export type ModelBucket = 'serving' | 'idle' | 'transit';

/** The fleet's buckets: the models' three, then the GPUs no replica of llmgw's held, then the time nobody saw. */
export type FleetBucket = ModelBucket | 'free' | 'unhealthy' | 'other' | 'unreachable' | 'cordoned' | 'unobserved';

export const MODEL_BUCKETS: readonly ModelBucket[] = ['serving', 'idle', 'transit'];
export const FLEET_BUCKETS: readonly FleetBucket[] = ['serving', 'idle', 'transit', 'free', 'unhealthy', 'other', 'unreachable', 'cordoned', 'unobserved'];

export type ModelCounts = Record<ModelBucket, number>;
export type FleetCounts = Record<FleetBucket, number>;

export function emptyModelCounts(): ModelCounts {
  return { serving: 0, idle: 0, transit: 0 };
}

export function emptyFleetCounts(): FleetCounts {
  return { serving: 0, idle: 0, transit: 0, free: 0, unhealthy: 0, other: 0, unreachable: 0, cordoned: 0, unobserved: 0 };
}

/** GPUs per bucket at one moment; `unobserved` is always 0 here (a commit is an observation). */
export interface GpuCounts {
  fleet: FleetCounts;
  /** model -> its GPUs; only models holding at least one GPU on a reachable node. */
  models: Map<string, ModelCounts>;
  /** Every GPU the fleet counts (nodes never seen add none, as in STATUS.md). */
  total: number;
}

/**
 * A `used` GPU's bucket. A replica with a rank on a lost node counts as gone
 * (docs/placement.md): its other ranks hold GPUs and serve nothing. A copy of
 * an id on a node its replica does not run on is a duplicate being stopped.
 * Idle is STATUS.md's rule: known unused for at least idle.after.
 */
function replicaBucket(fleet: Fleet, node: FleetNode, r: FleetReplica | undefined): ModelBucket {
  if (!r || r.lost || !r.nodes.includes(node.name)) return 'transit';
  if (countedState(r) !== 'running') return 'transit';
  const afterSeconds = fleet.config.cluster.idleAfterMs / 1000;
  return r.idleSeconds !== null && r.idleSeconds >= afterSeconds ? 'idle' : 'serving';
}

export function gpuCounts(fleet: Fleet): GpuCounts {
  const counts = emptyFleetCounts();
  const models = new Map<string, ModelCounts>();
  let total = 0;
  for (const node of fleet.nodes) {
    for (const g of node.gpus) {
      total += 1;
      if (g.bucket !== 'used') {
        // Unreachable GPUs count for the fleet only: whatever ran there was not seen.
        counts[g.bucket] += 1;
        continue;
      }
      const r = g.replica === null ? undefined : fleet.replicaById.get(g.replica);
      const bucket = replicaBucket(fleet, node, r);
      counts[bucket] += 1;
      const model = r?.model;
      if (model === undefined) continue;
      let m = models.get(model);
      if (!m) models.set(model, (m = emptyModelCounts()));
      m[bucket] += 1;
    }
  }
  return { fleet: counts, models, total };
}
