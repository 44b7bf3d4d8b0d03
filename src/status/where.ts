// The "where" of a status report, read off the fleet model: which GPUs are
// unhealthy and why, and why a replica failed. Pure, like summarize.

import { compressHostlist } from '../text/compress-hostlist.js';
import { expandHostlist } from '../config/hostlist.js';
import type { Fleet, FleetReplica } from '../types/fleet.js';
import { isFatalXid } from '../fleet/quarantine.js';
import type { QuarantinedGpu, ReplicaRow, UnhealthyGpu } from './types.js';

/** A GPU by node and index, with the agent's reason when it gave one (unhealthy GPUs; GPUs in other hands have none). */
export type GpuAt = Pick<UnhealthyGpu, 'node' | 'index'> & { reason?: string | null };

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

/** The GPUs in quarantine, by node then index. */
export function quarantinedGpus(fleet: Fleet): QuarantinedGpu[] {
  return Object.values(fleet.quarantine ?? {})
    .map((q) => ({ node: q.node, index: q.index, code: q.code, reason: q.reason, since: q.since, until: q.until }))
    .sort((a, b) => (a.node < b.node ? -1 : a.node > b.node ? 1 : a.index - b.index));
}

/**
 * The application Xids (not fatal: docs/placement.md#quarantined-gpus) the last
 * reports show on the GPUs a replica holds: the workload's fault, shown where
 * the workload is.
 */
export function applicationXids(fleet: Fleet, r: FleetReplica): NonNullable<ReplicaRow['xid']> {
  const out: NonNullable<ReplicaRow['xid']> = [];
  for (const rank of r.ranks) {
    const report = fleet.nodeByName.get(rank.node)?.report;
    for (const g of report?.gpus ?? []) {
      if (!rank.gpus.includes(g.index)) continue;
      for (const x of g.xid ?? []) if (!isFatalXid(x.code)) out.push({ node: rank.node, gpu: g.index, code: x.code, at: x.at });
    }
  }
  return out;
}

/** `gpu-a03:5`, `gpu-a03:[1,4-6]`: one node's GPU indices as a hostlist. */
export function gpuList(node: string, indices: readonly number[]): string {
  return `${node}:${compressHostlist(indices.map(String))}`;
}

/**
 * `gpu-a[01-03]:7, gpu-b04:[0-1]`: nodes whose unhealthy GPUs have the same
 * indices share one entry, their names a hostlist; in the order of each
 * group's first node. `nodes` is every node of the group.
 */
export function gpuGroups(gpus: readonly GpuAt[]): { name: string; nodes: string[] }[] {
  const groups = new Map<string, string[]>();
  for (const g of gpusByNode(gpus)) groups.set(g.indices, [...(groups.get(g.indices) ?? []), g.node]);
  const out: { name: string; nodes: string[] }[] = [];
  for (const [indices, nodes] of groups) {
    // `hgx-a052,hgx-c031:4` would read as two things: each hostlist piece gets its own `:indices`.
    for (const piece of topLevelPieces(compressHostlist(nodes))) {
      const expanded = expandHostlist(piece);
      out.push({ name: `${piece}:${indices}`, nodes: expanded.ok ? expanded.names : [piece] });
    }
  }
  const firstNode = (w: { nodes: string[] }) => w.nodes[0] ?? '';
  return out.sort((a, b) => (firstNode(a) < firstNode(b) ? -1 : firstNode(a) > firstNode(b) ? 1 : 0));
}

/** `a[1-2],b,c[3,5]` → `a[1-2]`, `b`, `c[3,5]`: split at the commas outside brackets. */
function topLevelPieces(list: string): string[] {
  const pieces: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < list.length; i++) {
    if (list[i] === '[') depth++;
    else if (list[i] === ']') depth--;
    else if (list[i] === ',' && depth === 0) {
      pieces.push(list.slice(start, i));
      start = i + 1;
    }
  }
  pieces.push(list.slice(start));
  return pieces.filter((p) => p !== '');
}

/** Unhealthy GPUs grouped by node, in node order: one `node:index` list each. */
export function gpusByNode(gpus: readonly GpuAt[]): { node: string; indices: string; list: string; reasons: string[] }[] {
  const byNode = new Map<string, GpuAt[]>();
  for (const g of gpus) byNode.set(g.node, [...(byNode.get(g.node) ?? []), g]);
  return [...byNode.entries()].map(([node, gs]) => ({
    node,
    indices: compressHostlist(gs.map((g) => String(g.index))),
    list: gpuList(
      node,
      gs.map((g) => g.index),
    ),
    reasons: [...new Set(gs.map((g) => g.reason).filter((r): r is string => typeof r === 'string' && r !== ''))],
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
