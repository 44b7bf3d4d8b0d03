// One replica id runs in one place (docs/safety.md#one-replica-id-in-one-place). When the reports
// show an id in two places — the same rank on two nodes, or more ranks than
// its placement of record has — one copy is the replica and every other is a
// duplicate, stopped by the plan. Which copy stays is decided by the
// placement of record in state.json (where the last tick left it, so the copy
// the routers already send to), and without one by a fixed preference that
// does not depend on the order reports arrive in.

import type { NodeCondition } from '../types/fleet.js';
import type { ReplicaReport, ReplicaState } from '../types/snapshot.js';
import type { PlacementRecord } from '../types/state.js';

export interface Part {
  node: { name: string; condition: NodeCondition };
  rep: ReplicaReport;
  rank: number;
}

const CONDITION_WEIGHT: Record<NodeCondition, number> = { reachable: 0, unreachable: 1, lost: 2 };
const STATE_WEIGHT: Record<ReplicaState, number> = { running: 0, starting: 1, failed: 2 };

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Without a record: a node that answers, then a copy that serves, then the one started first, then the node's name. */
function preference(a: Part, b: Part): number {
  return (
    CONDITION_WEIGHT[a.node.condition] - CONDITION_WEIGHT[b.node.condition] ||
    STATE_WEIGHT[a.rep.state] - STATE_WEIGHT[b.rep.state] ||
    cmp(a.rep.startedAt ?? '\uffff', b.rep.startedAt ?? '\uffff') ||
    cmp(a.node.name, b.node.name)
  );
}

/**
 * The parts of one id split into the replica (`kept`) and its duplicates
 * (`extra`, empty when the id runs in one place). `expectedNodes` is the
 * model's `nodes` (undefined for a model no longer in models.yaml).
 */
export function splitCopies(parts: Part[], record: PlacementRecord | undefined, expectedNodes: number | undefined): { kept: Part[]; extra: Part[] } {
  const ranks = new Set(parts.map((p) => p.rank));
  const collide = ranks.size < parts.length;
  // More ranks than the model has is a duplicate only against a record of that
  // many: a replica of an older spec may have more ranks and is replaced, not split.
  const tooMany = expectedNodes !== undefined && parts.length > expectedNodes && record !== undefined && record.ranks.length === expectedNodes;
  if (!collide && !tooMany) return { kept: parts, extra: [] };

  const ofRecord = new Set((record?.ranks ?? []).map((r) => `${r.rank}@${r.node}`));
  const onRecord = parts.filter((p) => ofRecord.has(`${p.rank}@${p.node.name}`));
  let kept: Part[];
  if (onRecord.length > 0) {
    kept = onRecord;
  } else {
    const best = new Map<number, Part>();
    for (const p of parts) {
      const cur = best.get(p.rank);
      if (cur === undefined || preference(p, cur) < 0) best.set(p.rank, p);
    }
    kept = [...best.values()];
  }
  const keep = new Set(kept);
  return { kept, extra: parts.filter((p) => !keep.has(p)) };
}
