// A node as Slurm sees it (docs/slurm.md#the-node-condition-slurm), for the fleet
// model: its condition (src/slurm/condition.ts) and the GPUs jobs not llmgw's
// hold there. Judged at the fleet's `now`, so a view older than lostAfter makes
// every node unknown even when read from a file long after it was observed.

import { slurmConditionOf } from '../slurm/condition.js';
import type { ClusterConfig } from '../types/config.js';
import type { FleetGpu, FleetSlurm } from '../types/fleet.js';
import type { SlurmView } from '../types/snapshot.js';

/** The view as it holds at `nowMs`: past lostAfter since Slurm stopped answering, emptied (docs/slurm.md#when-slurm-does-not-answer). */
export function slurmViewAt(view: SlurmView | undefined, lostAfterMs: number, nowMs: number): SlurmView | undefined {
  if (view === undefined || view.reachable) return view;
  const since = Date.parse(view.unreachableSince ?? '');
  if (!Number.isNaN(since) && nowMs - since < lostAfterMs) return view;
  const { pendingJobs: _ids, pendingNeeds: _needs, ...rest } = view;
  return { ...rest, nodes: {}, jobs: [], pending: 0 };
}

/** undefined without cluster.yaml `slurm:` (nothing changes then), or without a view in the snapshot. */
export function fleetSlurmOf(cluster: ClusterConfig, view: SlurmView | undefined, node: string, now: Date): FleetSlurm | undefined {
  if (cluster.slurm === undefined || view === undefined) return undefined;
  const condition = slurmConditionOf(view, node, now);
  const entry = Object.hasOwn(view.nodes, node) ? view.nodes[node] : undefined;
  const out: FleetSlurm = { gpusAllocated: entry?.gpusAllocated ?? 0 };
  if (entry?.gpuIndicesAllocated !== undefined && entry.gpuIndicesAllocated.length > 0) out.gpuIndicesAllocated = entry.gpuIndicesAllocated;
  if (condition !== null) out.condition = condition;
  return out;
}

/**
 * The indices of `gpus` that Slurm's other jobs hold: the ones Slurm names, or,
 * when it gives only a count, that many of the GPUs no replica holds, lowest
 * index first (Slurm's own order of assignment).
 */
export function slurmHeldIndices(slurm: FleetSlurm | undefined, gpus: readonly Pick<FleetGpu, 'index' | 'replica'>[]): Set<number> {
  if (slurm === undefined || slurm.gpusAllocated <= 0) return new Set();
  if (slurm.gpuIndicesAllocated !== undefined) return new Set(slurm.gpuIndicesAllocated);
  const held = new Set<number>();
  for (const g of gpus) {
    if (held.size >= slurm.gpusAllocated) break;
    if (g.replica === null) held.add(g.index);
  }
  return held;
}
