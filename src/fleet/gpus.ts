// GPU buckets and free whole nodes (docs/placement.md). Each GPU lands in exactly one
// bucket, decided in a fixed order, so the buckets always add up to the total.
// Unhealthy comes before used and free: a broken card is never room, and a
// replica sitting on one is counted where the problem is, not as capacity.
// `other` (someone else's compute processes, no llmgw replica) comes before
// used: it is neither free nor llmgw's, so placement never takes it.

import type { FleetGpu, FleetSlurm, GpuBucket, NodeCondition } from '../types/fleet.js';
import type { AgentReport } from '../types/snapshot.js';
import { slurmHeldIndices } from './slurm.js';

/** GPU index -> replica id holding it, from one node's report. */
export function gpuHolders(report: AgentReport): Map<number, string> {
  const holders = new Map<number, string>();
  for (const r of report.replicas) for (const i of r.gpus) if (!holders.has(i)) holders.set(i, r.id);
  return holders;
}

export function bucketOf(condition: NodeCondition, healthy: boolean, replica: string | null, cordoned: boolean, foreign = 0): GpuBucket {
  if (condition !== 'reachable') return 'unreachable';
  if (!healthy) return 'unhealthy';
  if (replica === null && foreign > 0) return 'other';
  if (replica !== null) return 'used';
  if (cordoned) return 'cordoned';
  return 'free';
}

/**
 * The node's GPUs, sorted by index, each with its class and bucket. With Slurm
 * (docs/slurm.md): a GPU another Slurm job holds is `other` like one with
 * someone else's process, and a node in the condition `slurm` counts its free
 * GPUs `cordoned`.
 */
export function fleetGpus(
  report: AgentReport | null,
  condition: NodeCondition,
  cordoned: boolean,
  classOf: (productName: string) => string,
  slurm?: FleetSlurm,
): FleetGpu[] {
  if (report === null) return [];
  const holders = gpuHolders(report);
  const slurmHeld = slurmHeldIndices(
    slurm,
    [...report.gpus].sort((a, b) => a.index - b.index).map((g) => ({ index: g.index, replica: holders.get(g.index) ?? null })),
  );
  const closed = cordoned || slurm?.condition !== undefined;
  const gpus = report.gpus.map((g): FleetGpu => {
    const replica = holders.get(g.index) ?? null;
    // An absent count is unknown (an older agent, or nvidia-smi could not list
    // processes): read as none, or one failed query would empty a whole node.
    const foreign = typeof g.foreign === 'number' && g.foreign > 0 ? g.foreign : 0;
    const held = slurmHeld.has(g.index);
    return {
      index: g.index,
      class: classOf(g.name),
      name: g.name,
      healthy: g.healthy,
      bucket: bucketOf(condition, g.healthy, replica, closed, held ? foreign + 1 : foreign),
      replica,
      foreign,
      ...(held ? { slurmHeld: true as const } : {}),
      // What the fit rule judges a node by (src/fleet/fit.ts); unknown stays absent, never zero.
      ...(typeof g.memoryMiB === 'number' && g.memoryMiB > 0 ? { memoryMiB: g.memoryMiB } : {}),
    };
  });
  return gpus.sort((a, b) => a.index - b.index);
}

/**
 * The class of a free whole node, or null: reachable, not cordoned, no replica,
 * at least one GPU, every GPU healthy, in no one else's hands and of one class.
 * A node mixing classes is a whole node of none, because a multi-node replica
 * needs every card alike.
 */
export function freeWholeClassOf(condition: NodeCondition, cordoned: boolean, replicaCount: number, gpus: readonly FleetGpu[]): string | null {
  const cls = gpus[0]?.class;
  if (condition !== 'reachable' || cordoned || replicaCount > 0 || cls === undefined) return null;
  for (const g of gpus) if (!g.healthy || g.class !== cls || g.replica !== null || (g.foreign ?? 0) > 0 || g.slurmHeld) return null;
  return cls;
}
