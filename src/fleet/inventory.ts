// How many GPUs a node is believed to have (docs/placement.md#inventory). A node's
// report is its word: a compromised one can claim 1,024 GPUs (within the
// report's bounds) and absorb every replica of a new model. cluster.yaml
// `nodes[].gpus` declares the count; without it the most GPUs the node has
// been believed to report before (state.json `inventory`) bounds it, so the
// first report sets it and a later, larger one is not believed until a
// person declares the count. A report over the bound is placed with its
// first GPUs by index, and STATUS.md says so.

import type { InventoryBound } from '../types/fleet.js';
import type { AgentReport } from '../types/snapshot.js';

/** The GPU count a node is held to: declared, else best known; undefined when neither is known (the report is believed). */
export function believedGpus(declared: number | undefined, bestKnown: number | undefined): { count: number; source: InventoryBound['source'] } | undefined {
  if (declared !== undefined) return { count: declared, source: 'declared' };
  if (bestKnown !== undefined) return { count: bestKnown, source: 'best-known' };
  return undefined;
}

/** The report as placement may believe it: at most the bound's GPUs, the first by index; `bound` set when it listed more. */
export function boundedReport(
  report: AgentReport | null,
  declared: number | undefined,
  bestKnown: number | undefined,
): { report: AgentReport | null; bound?: InventoryBound } {
  const believed = believedGpus(declared, bestKnown);
  if (report === null || believed === undefined || report.gpus.length <= believed.count) return { report };
  const kept = [...report.gpus].sort((a, b) => a.index - b.index).slice(0, believed.count);
  return {
    report: { ...report, gpus: kept },
    bound: { reported: report.gpus.length, believed: believed.count, source: believed.source },
  };
}

/**
 * state.json `inventory` after a tick: for each node of cluster.yaml that
 * answered, the most GPUs it was believed to list (a report over its bound
 * counts as the bound). Nodes cluster.yaml no longer lists are dropped, so
 * the map is bounded by cluster.yaml.
 */
export function nextInventory(
  prev: Readonly<Record<string, number>> | undefined,
  nodes: readonly { name: string; gpus?: number }[],
  reported: (node: string) => number | undefined,
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const n of nodes) {
    const before = prev !== undefined && Object.hasOwn(prev, n.name) ? prev[n.name] : undefined;
    const count = reported(n.name);
    const believed = believedGpus(n.gpus, before);
    const now = count === undefined ? undefined : believed === undefined ? count : Math.min(count, believed.count);
    // A declaration caps what is kept, so a count believed before it was declared does not outlive it.
    const most = Math.min(Math.max(before ?? -1, now ?? -1), n.gpus ?? Infinity);
    if (most >= 0) out[n.name] = most;
  }
  return out;
}
