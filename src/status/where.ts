// The "where" of a status report, read off the fleet model: which GPUs are
// unhealthy and why, and why a replica failed. Pure, like summarize.

import { compressHostlist } from '../config/compress-hostlist.js';
import type { Fleet, FleetReplica } from '../types/fleet.js';
import type { UnhealthyGpu } from './types.js';

/** GPUs in the unhealthy bucket, by node then index (nodes are sorted, GPUs by index). */
export function unhealthyGpus(fleet: Fleet): UnhealthyGpu[] {
  const out: UnhealthyGpu[] = [];
  for (const node of fleet.nodes) {
    for (const g of node.gpus) {
      if (g.bucket !== 'unhealthy') continue;
      const reported = node.report?.gpus.find((r) => r.index === g.index);
      out.push({ node: node.name, index: g.index, class: g.class, reason: reported?.reason ?? null });
    }
  }
  return out;
}

/** `gpu-a03:5`, `gpu-a03:[1,4-6]`: one node's GPU indices as a hostlist. */
export function gpuList(node: string, indices: readonly number[]): string {
  return `${node}:${compressHostlist(indices.map(String))}`;
}

/** Unhealthy GPUs grouped by node, in node order: one `node:index` list each. */
export function gpusByNode(gpus: readonly UnhealthyGpu[]): { node: string; indices: string; list: string; reasons: string[] }[] {
  const byNode = new Map<string, UnhealthyGpu[]>();
  for (const g of gpus) byNode.set(g.node, [...(byNode.get(g.node) ?? []), g]);
  return [...byNode.entries()].map(([node, gs]) => ({
    node,
    indices: compressHostlist(gs.map((g) => String(g.index))),
    list: gpuList(node, gs.map((g) => g.index)),
    reasons: [...new Set(gs.map((g) => g.reason).filter((r): r is string => r !== null && r !== ''))],
  }));
}

/** A failed replica's error: its first failed rank's (rank order) that says why; null when none does. */
export function replicaError(fleet: Fleet, r: FleetReplica): string | null {
  if (r.state !== 'failed') return null;
  for (const rank of r.ranks) {
    const rep = fleet.nodeByName.get(rank.node)?.report?.replicas.find((x) => x.id === r.id);
    if (rep?.state === 'failed' && rep.error) return r.ranks.length > 1 ? `${rank.node}: ${rep.error}` : rep.error;
  }
  return null;
}
