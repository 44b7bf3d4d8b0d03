// Where each model's replicas run and what the loss of one node or one fabric
// would leave of it (docs/placement.md#survive): one row per model with a
// replica, drawn by STATUS.md, `llmgw status` and the console from the one
// status report. The nodes are named (a short hostlist, capped), not counted,
// so a reviewer reads in the STATUS.md diff of a pull request where its
// replicas go; nothing here moves while the fleet stands still.

import type { StatusReport } from '../../status/types.js';
import { compressHostlist } from '../../text/compress-hostlist.js';
import { capList } from '../../text/format.js';

type SurviveModel = NonNullable<StatusReport['survive']>['node']['models'][string];

/** Past this many nodes a row names the first ones and counts the rest: the line stays short at 20,000 nodes. */
export const MAX_ROW_NODES = 10;

export interface PlacementRow {
  model: string;
  /** Replicas that serve, or will once started: not draining, not failed (as survive counts them). */
  replicas: number;
  /** The distinct nodes they run on, by name. */
  nodes: string[];
  node: SurviveModel | null;
  fabric: SurviveModel | null;
  /**
   * Several replicas and the loss of one node leaves none: they are all on
   * that node. Worth a look whatever models.yaml's `survive:` says.
   */
  attention: boolean;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function placementRows(report: StatusReport): PlacementRow[] {
  const byModel = new Map<string, { replicas: number; nodes: Set<string> }>();
  for (const r of report.replicas) {
    if (r.state === 'draining' || r.state === 'failed') continue;
    let entry = byModel.get(r.model);
    if (!entry) byModel.set(r.model, (entry = { replicas: 0, nodes: new Set() }));
    entry.replicas++;
    for (const n of r.nodes) entry.nodes.add(n);
  }
  return [...byModel.entries()]
    .sort(([a], [b]) => cmp(a, b))
    .map(([model, e]) => {
      const node = report.survive?.node.models[model] ?? null;
      const fabric = report.survive?.fabric.models[model] ?? null;
      return { model, replicas: e.replicas, nodes: [...e.nodes].sort(cmp), node, fabric, attention: e.replicas > 1 && node !== null && node.to === 0 };
    });
}

/** `gpu-a[01-02],gpu-b03`, or past MAX_ROW_NODES the first ones `and 12 more`. */
export function nodesText(nodes: readonly string[]): string {
  const { shown, more } = capList(nodes, MAX_ROW_NODES);
  return more > 0 ? `${compressHostlist([...shown])} and ${more} more` : compressHostlist([...shown]);
}

/**
 * `losing gpu-a01 leaves 1 of 2`: the node (fabric) whose loss leaves the
 * model the fewest replicas at once, and `; no room to replace` when the free
 * GPUs left could not hold what was lost; `—` without a replica.
 */
export function lossText(s: SurviveModel | null): string {
  if (s === null || s.worst === null) return '—';
  const room = s.roomToReplace ? '' : '; no room to replace';
  return `losing ${s.worst} leaves ${s.to} of ${s.from}${room}`;
}

/** Column heads of the table, for every view. */
export const PLACEMENT_HEAD = ['Model', 'Replicas', 'Nodes', 'Worst node loss', 'Worst fabric loss'];
