// Replicas merged across nodes by id (docs/protocol.md): a replica spanning nodes
// appears in each node's report with its own rank. Its state is the worst of its
// ranks (one failed rank cannot serve alone), its start time rank 0's.

import type { DuplicateCopy, FleetReplica, NodeCondition, ReplicaRank, UnrecordedCopy } from '../types/fleet.js';
import type { AgentReport, ReplicaReport, ReplicaState } from '../types/snapshot.js';
import type { PlacementRecord } from '../types/state.js';
import { splitCopies, type Part } from './duplicates.js';

export interface ReportedNode {
  name: string;
  condition: NodeCondition;
  report: AgentReport | null;
}

const STATE_WEIGHT: Record<ReplicaState, number> = { running: 0, starting: 1, failed: 2 };

/** The port a replica listens on: `port`, else the one in its endpoint URL. */
export function replicaPort(r: Pick<ReplicaReport, 'port' | 'endpoint'>): number | null {
  if (typeof r.port === 'number') return r.port;
  if (!r.endpoint) return null;
  try {
    const port = new URL(r.endpoint).port;
    return port === '' ? null : Number(port);
  } catch {
    return null;
  }
}

interface Acc {
  parts: { node: ReportedNode; rep: ReplicaReport; rank: number }[];
}

function byRank(a: { rank: number; node: { name: string } }, b: { rank: number; node: { name: string } }): number {
  return a.rank - b.rank || (a.node.name < b.node.name ? -1 : a.node.name > b.node.name ? 1 : 0);
}

function merge(id: string, acc: Acc): FleetReplica {
  const parts = acc.parts.sort(byRank);
  const head = parts[0];
  // Every replica is grouped from at least one report: an empty group is a bug here, not a fleet state.
  if (head === undefined) throw new Error(`replica ${id} merged from no reports`);
  let state: ReplicaState = 'running';
  for (const p of parts) if (STATE_WEIGHT[p.rep.state] > STATE_WEIGHT[state]) state = p.rep.state;
  const ranks: ReplicaRank[] = parts.map((p) => ({ node: p.node.name, rank: p.rank, gpus: [...p.rep.gpus].sort((a, b) => a - b) }));
  const port = parts.map((p) => replicaPort(p.rep)).find((x) => x !== null) ?? null;
  return {
    id,
    model: head.rep.model,
    state,
    startedAt: head.rep.startedAt ?? null,
    spec: parts.map((p) => p.rep.spec).find((s) => s !== undefined) ?? null,
    port,
    endpoint: head.rep.endpoint ?? null,
    ranks,
    nodes: ranks.map((r) => r.node),
    lost: parts.some((p) => p.node.condition === 'lost'),
    unreachable: parts.some((p) => p.node.condition === 'unreachable'),
    idleSeconds: null,
    idleSince: null,
    // The head's check: it serves the endpoint, and only it is sent one (src/apply/agent-requests.ts).
    check: head.rep.check ?? null,
    // The head serves the endpoint: its engine's progress is the replica's (docs/placement.md#stalled-and-ejected-replicas).
    ...(head.rep.load?.stalledSince === undefined ? {} : { stalledSince: head.rep.load.stalledSince }),
    error: parts.find((p) => p.rep.state === 'failed' && p.rep.error)?.rep.error ?? null,
    draining: null,
  };
}

export interface MergeOptions {
  /**
   * The placement of record of an id (state.json), which decides which copy
   * of a duplicated id stays. Given, an id without a record is unrecorded
   * (docs/safety.md#records-over-reports); absent, every id reported is a
   * replica (how records are seeded from a snapshot, src/fleet/records.ts).
   */
  record?: (id: string) => PlacementRecord | undefined;
}

export interface Merged {
  replicas: FleetReplica[];
  duplicates: DuplicateCopy[];
  /** Copies of ids llmgw has no record of, by id then node: never counted, never routed, left alone. */
  unrecorded: UnrecordedCopy[];
}

function unrecordedCopy(id: string, p: Part): UnrecordedCopy {
  const port = replicaPort(p.rep);
  return {
    replica: id,
    model: p.rep.model,
    node: p.node.name,
    rank: p.rank,
    gpus: [...p.rep.gpus].sort((a, b) => a - b),
    state: p.rep.state,
    ...(port === null ? {} : { port }),
  };
}

function rankOf(p: Part): ReplicaRank {
  return { node: p.node.name, rank: p.rank, gpus: [...p.rep.gpus].sort((a, b) => a - b) };
}

/**
 * Every replica the reports know of (lost nodes' last reports included), sorted
 * by id; and the copies of an id that is not where it runs (src/fleet/duplicates.ts).
 */
export function mergeReplicas(nodes: Iterable<ReportedNode>, opts: MergeOptions = {}): Merged {
  const byId = new Map<string, Acc>();
  for (const node of nodes) {
    if (node.report === null) continue;
    const seen = new Set<string>();
    for (const rep of node.report.replicas) {
      if (seen.has(rep.id)) continue;
      seen.add(rep.id);
      let acc = byId.get(rep.id);
      if (!acc) byId.set(rep.id, (acc = { parts: [] }));
      acc.parts.push({ node, rep, rank: rep.rank ?? 0 });
    }
  }
  const groups = [...byId.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const replicas: FleetReplica[] = [];
  const duplicates: DuplicateCopy[] = [];
  const unrecorded: UnrecordedCopy[] = [];
  for (const [id, { parts }] of groups) {
    const model = parts[0]?.rep.model;
    if (model === undefined) continue;
    const record = opts.record?.(id);
    if (opts.record !== undefined && record === undefined) {
      for (const p of parts.sort(byRank)) unrecorded.push(unrecordedCopy(id, p));
      continue;
    }
    const { kept, extra } = splitCopies(parts, record);
    const replica = kept.length === 0 ? null : merge(id, { parts: kept as Acc['parts'] });
    if (replica !== null) replicas.push(replica);
    if (extra.length === 0) continue;
    const ranks = extra.sort(byRank).map(rankOf);
    const recordNodes = replica?.nodes ?? [...(record?.ranks ?? [])].sort((a, b) => a.rank - b.rank).map((r) => r.node);
    duplicates.push({ replica: id, model: replica?.model ?? model, ranks, nodes: ranks.map((r) => r.node), recordNodes });
  }
  return { replicas, duplicates, unrecorded };
}
