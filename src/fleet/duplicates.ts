// One replica id runs in one place (docs/safety.md#one-replica-id-in-one-place). When the reports
// show an id in two places — the same rank on two nodes, or more ranks than
// its placement of record has — one copy is the replica and every other is a
// duplicate, stopped by the plan. Which copy stays is decided by the
// placement of record in state.json (where llmgw started it, so the copy the
// routers already send to): a copy anywhere else is a duplicate whatever its
// report says of itself, an older `startedAt` included (docs/safety.md#records-over-reports).
// Without a record (seeding records from a snapshot, src/fleet/records.ts) a
// fixed preference decides, one that does not depend on the order reports arrive in.

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
 * The parts of one id split into the replica (`kept`, empty when no copy is
 * where its record says) and its duplicates (`extra`, empty when the id runs
 * in one place).
 */
export function splitCopies(parts: Part[], record: PlacementRecord | undefined): { kept: Part[]; extra: Part[] } {
  if (record !== undefined) {
    // llmgw never moves a replica: what is not where it was started is not it.
    const ofRecord = new Set(record.ranks.map((r) => `${r.rank}@${r.node}`));
    const kept: Part[] = [];
    const extra: Part[] = [];
    const taken = new Set<string>();
    for (const p of parts) {
      const key = `${p.rank}@${p.node.name}`;
      if (ofRecord.has(key) && !taken.has(key)) {
        taken.add(key);
        kept.push(p);
      } else extra.push(p);
    }
    return { kept, extra };
  }
  const ranks = new Set(parts.map((p) => p.rank));
  // More ranks than the model has, without a record, is a replica of an older, larger spec: replaced, not split.
  if (ranks.size === parts.length) return { kept: parts, extra: [] };
  const best = new Map<number, Part>();
  for (const p of parts) {
    const cur = best.get(p.rank);
    if (cur === undefined || preference(p, cur) < 0) best.set(p.rank, p);
  }
  const keep = new Set(best.values());
  return { kept: [...keep], extra: parts.filter((p) => !keep.has(p)) };
}
