// Placements of record (docs/safety.md#records-over-reports): where llmgw itself
// started each replica — node, GPUs, port. A node's report is its word, and a
// compromised node can say anything; the record is llmgw's. A record is made
// only by a start llmgw sent (the tick's effects, or its write-ahead intent
// when the tick died before committing), kept while the replica exists, and
// seeded once from the last snapshot llmgw committed when state.json has none.

import type { FleetReplica } from '../types/fleet.js';
import type { StartAction } from '../types/plan.js';
import type { Snapshot } from '../types/snapshot.js';
import type { PlacementRecord } from '../types/state.js';
import { mergeReplicas, type ReportedNode } from './replicas.js';

/** A fleet replica as state.json records it. */
export function recordOf(r: FleetReplica): PlacementRecord {
  return {
    model: r.model,
    state: r.state,
    ranks: r.ranks.map((k) => ({ node: k.node, rank: k.rank, gpus: [...k.gpus] })),
    ...(r.port === null ? {} : { port: r.port }),
    ...(r.spec === null ? {} : { spec: r.spec }),
  };
}

/**
 * Records seeded from reports, every id believed: the replicas they show
 * (one copy of a duplicated id, by the fixed preference of src/fleet/duplicates.ts).
 * Used on the committed snapshot only — what llmgw itself last wrote — never
 * on a fresh observation, which would make any report a record.
 */
export function seedRecords(nodes: Iterable<ReportedNode>): Record<string, PlacementRecord> {
  const out: Record<string, PlacementRecord> = {};
  for (const r of mergeReplicas(nodes).replicas) out[r.id] = recordOf(r);
  return out;
}

/** The nodes of a snapshot as seeding reads them: a node that did not answer by its last report. */
export function snapshotNodes(snapshot: Snapshot): ReportedNode[] {
  return snapshot.nodes.map((n) =>
    n.reachable ? { name: n.name, condition: 'reachable', report: n.report } : { name: n.name, condition: 'unreachable', report: n.lastReport },
  );
}

/** The records seeded from a committed snapshot; none without one (a repo never reconciled). */
export function seedFromSnapshot(snapshot: Snapshot | null): Record<string, PlacementRecord> {
  return snapshot === null ? {} : seedRecords(snapshotNodes(snapshot));
}

/** The record a start makes: the node, GPUs and port llmgw told the agent. */
export function startRecord(start: Pick<StartAction, 'model' | 'port' | 'placement'>): PlacementRecord {
  return {
    model: start.model,
    state: 'starting',
    ranks: start.placement.map((p, rank) => ({ node: p.node, rank, gpus: [...p.gpus].sort((a, b) => a - b) })),
    port: start.port,
  };
}

/** `records` with a record for each start (the projection of a tick's starts: its new replicas are llmgw's). */
export function withStarts(
  records: Readonly<Record<string, PlacementRecord>> | undefined,
  starts: readonly StartAction[],
): Readonly<Record<string, PlacementRecord>> | undefined {
  if (records === undefined || starts.length === 0) return records;
  const out = { ...records };
  for (const s of starts) out[s.replica] = startRecord(s);
  return out;
}

/** Whether a report's copy is exactly what a record says: same node, rank, GPUs (in a Slurm job, as many: Slurm picks which) and (when both name one) port. */
export function matchesRecord(
  record: PlacementRecord,
  copies: readonly { node: string; rank: number; gpus: readonly number[]; port?: number | null; slurmJob?: string }[],
): boolean {
  if (copies.length !== record.ranks.length) return false;
  return record.ranks.every((k) => {
    const c = copies.find((x) => x.node === k.node && x.rank === k.rank);
    if (c === undefined) return false;
    const a = [...c.gpus].sort((x, y) => x - y);
    const b = [...k.gpus].sort((x, y) => x - y);
    if (a.length !== b.length) return false;
    // In a Slurm job the node and the count are llmgw's, the indices Slurm's (docs/slurm.md).
    if (c.slurmJob === undefined && a.some((g, i) => g !== b[i])) return false;
    return record.port === undefined || c.port === undefined || c.port === null || c.port === record.port;
  });
}
