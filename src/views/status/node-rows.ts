// The nodes that need a look, one row each: lost, unreachable, with unhealthy
// GPUs, cordoned — in that order, each group by name. STATUS.md, the terminal
// and the console draw this one list; the full per-node listing is the
// console's (docs/status.md).

import type { UnreachableReason } from '../../types/snapshot.js';
import type { StatusReport } from '../../status/types.js';
import { gpusByNode } from '../../status/where.js';

export interface NodeRow {
  node: string;
  /** `cordoned` only for a cordoned node that is reachable. */
  condition: 'lost' | 'unreachable' | 'reachable' | 'cordoned';
  cordoned: boolean;
  reason: UnreachableReason | null;
  /** ISO or null (unknown) for lost and unreachable nodes; null otherwise. */
  since: string | null;
  /** The last contact's error line (not for STATUS.md: it may change every tick). */
  error: string | null;
  /** `3` or `[1,4-5]` and the agent's reasons, or null when none is unhealthy. */
  gpus: string | null;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function attentionNodes(report: StatusReport): NodeRow[] {
  const cordoned = new Set(report.nodes.cordoned.map((c) => c.node));
  const rows: NodeRow[] = [];
  const seen = new Set<string>();
  for (const [condition, list] of [
    ['lost', report.nodes.lost],
    ['unreachable', report.nodes.unreachable],
  ] as const) {
    for (const n of list) {
      seen.add(n.node);
      rows.push({ node: n.node, condition, cordoned: cordoned.has(n.node), reason: n.reason, since: n.since, error: n.error, gpus: null });
    }
  }
  for (const g of gpusByNode(report.unhealthyGpus)) {
    seen.add(g.node);
    const why = g.reasons.length > 0 ? ` (${clip(g.reasons.join('; '), 80)})` : '';
    rows.push({
      node: g.node,
      condition: cordoned.has(g.node) ? 'cordoned' : 'reachable',
      cordoned: cordoned.has(g.node),
      reason: null,
      since: null,
      error: null,
      gpus: g.indices + why,
    });
  }
  for (const c of report.nodes.cordoned) {
    if (!seen.has(c.node)) rows.push({ node: c.node, condition: 'cordoned', cordoned: true, reason: null, since: null, error: null, gpus: null });
  }
  return rows;
}
