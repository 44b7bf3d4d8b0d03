// The aggregate numbers status and the planner both read off the fleet model.

import type { Fleet, FleetReplica, GpuBucket } from '../types/fleet.js';
import type { ReplicaState } from '../types/snapshot.js';

export type BucketCounts = Record<GpuBucket, number> & { total: number };

export interface ClassCapacity extends BucketCounts {
  class: string;
}

function emptyCounts(): BucketCounts {
  return { total: 0, used: 0, free: 0, unhealthy: 0, other: 0, unreachable: 0, cordoned: 0 };
}

/** GPUs per class and bucket, sorted by class. */
export function capacityByClass(fleet: Fleet): ClassCapacity[] {
  const byClass = new Map<string, BucketCounts>();
  for (const node of fleet.nodes) {
    for (const g of node.gpus) {
      let c = byClass.get(g.class);
      if (!c) byClass.set(g.class, (c = emptyCounts()));
      c[g.bucket] += 1;
      c.total += 1;
    }
  }
  return [...byClass].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([cls, c]) => ({ class: cls, ...c }));
}

export interface ModelCounts {
  name: string;
  /** `replicas` of models.yaml; 0 for a model that is no longer there. */
  desired: number;
  running: number;
  starting: number;
  failed: number;
  /** Out of the routers and waiting to be stopped (not counted as running); absent when none. */
  draining?: number;
}

/** What a replica counts as: `draining` once its stop began, unless it failed meanwhile (then it is stopped at once). */
export function countedState(r: FleetReplica): ReplicaState | 'draining' {
  return r.draining && r.state !== 'failed' ? 'draining' : r.state;
}

/**
 * Replica states per model: every model of models.yaml, plus any model a node
 * still runs that models.yaml no longer names (desired 0). Replicas on lost
 * nodes count as gone, as the planner counts them.
 */
export function modelCounts(fleet: Fleet): ModelCounts[] {
  const counts = new Map<string, ModelCounts>();
  for (const m of fleet.config.models) counts.set(m.name, { name: m.name, desired: m.replicas, running: 0, starting: 0, failed: 0 });
  for (const r of fleet.replicas) {
    if (r.lost) continue;
    let c = counts.get(r.model);
    if (!c) counts.set(r.model, (c = { name: r.model, desired: 0, running: 0, starting: 0, failed: 0 }));
    const state = countedState(r);
    if (state === 'draining') c.draining = (c.draining ?? 0) + 1;
    else c[state] += 1;
  }
  return [...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, c]) => c);
}

/** fabric -> class -> free whole nodes. Every class seen on a fabric's nodes has a key, 0 included. */
export function freeWholeNodes(fleet: Fleet): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  for (const f of fleet.config.cluster.fabrics) out.set(f, new Map());
  for (const node of fleet.nodes) {
    let byClass = out.get(node.fabric);
    if (!byClass) out.set(node.fabric, (byClass = new Map<string, number>()));
    for (const g of node.gpus) if (!byClass.has(g.class)) byClass.set(g.class, 0);
    if (node.freeWholeClass !== null) byClass.set(node.freeWholeClass, (byClass.get(node.freeWholeClass) ?? 0) + 1);
  }
  return out;
}
