// The part of .llmgw/state.json a tick owns (docs/config.md, docs/safety.md): when each node
// went unreachable, where each replica runs (its placement of record), and recent start failures, which steer the next placement
// of that model away from that node for 30 minutes: those `agent apply`
// refused, and those a report later shows `failed`. What was notified belongs
// to src/notify; this never touches it.

import type { ApplyOutcome } from '../apply/outcome.js';
import type { Snapshot } from '../types/snapshot.js';
import type { Config } from '../types/config.js';
import { quarantinesOf } from '../fleet/quarantine.js';
import { replicaPort } from '../fleet/replicas.js';
import { nextInventory } from '../fleet/inventory.js';
import { matchesRecord, recordOf, seedFromSnapshot, startRecord } from '../fleet/records.js';
import type { Fleet } from '../types/fleet.js';
import type { PlacementRecord, State, StartFailure } from '../types/state.js';

/** How long a failed start steers placement away from its node. */
export const START_FAILURE_MEMORY_MS = 30 * 60_000;

/** unreachableSince as the snapshot saw it: a node that answered is dropped, one never seen has no time to keep. */
export function unreachableFromSnapshot(snapshot: Snapshot): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of snapshot.nodes) if (!n.reachable && n.unreachableSince) out[n.name] = n.unreachableSince;
  return out;
}

/** The failed starts of this apply, one per failing node. */
export function startFailuresOf(outcome: ApplyOutcome, at: string): StartFailure[] {
  return outcome.failures
    .filter((f) => f.op === 'start' && f.replica !== null && f.model !== null)
    .map((f) => ({ model: f.model ?? '', node: f.host, replica: f.replica ?? '', at, error: f.error, ...(f.port === undefined ? {} : { port: f.port }) }));
}

/** An ISO time in whole seconds, as every other time llmgw commits. */
function seconds(at: Date): string {
  return at.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * Most failed starts are not refused by `agent apply`: the process starts,
 * then exits or never answers its health check, and a later report says
 * `failed`. Those count as failed starts too, recorded before planning so the
 * replacement this very tick places avoids that node. Recorded once per
 * (replica, node): a failed replica that stays until it is stopped does not
 * refresh the time, so it makes no commit on every tick.
 */
export function recordObservedFailures(prev: State, snapshot: Snapshot, now: Date): State {
  const known = new Set(prev.startFailures.map((f) => `${f.replica}@${f.node}`));
  const added: StartFailure[] = [];
  for (const n of snapshot.nodes) {
    if (!n.reachable) continue;
    for (const r of n.report.replicas) {
      if (r.state !== 'failed' || known.has(`${r.id}@${n.name}`)) continue;
      known.add(`${r.id}@${n.name}`);
      // The agent's own words when it gives them (an answer check that failed, a process that exited).
      const error = r.error ?? 'failed after it was started (the process exited, or no health before startTimeout)';
      const port = replicaPort(r);
      added.push({ model: r.model, node: n.name, replica: r.id, at: seconds(now), error, ...(port === null ? {} : { port }) });
    }
  }
  return added.length === 0 ? prev : { ...prev, startFailures: [...prev.startFailures, ...added] };
}

/**
 * The GPU quarantines (src/fleet/quarantine.ts) committed with state.json: an
 * Xid is in one report only, so what it opened must be remembered. Absent when
 * none is in force, so a fleet without faults never gains the key.
 */
export function recordQuarantines(prev: State, input: { snapshot: Snapshot; config: Config; now: string }): State {
  const quarantine = quarantinesOf(prev.quarantine, input.snapshot, input.config.cluster, Date.parse(input.now));
  const { quarantine: _old, ...rest } = prev;
  return Object.keys(quarantine).length === 0 ? rest : { ...rest, quarantine };
}

/**
 * When each node's last outage ended, kept for lostAfter after that (src/plan/surplus.ts
 * stops the replicas of a node that just came back first): a node that was
 * unreachable at the last tick and answered in this one ended its outage now.
 */
export function outagesEnded(prev: State, snapshot: Snapshot, now: Date, lostAfterMs: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [node, at] of Object.entries(prev.outageEnded ?? {})) if (Date.parse(at) + lostAfterMs > now.getTime()) out[node] = at;
  for (const n of snapshot.nodes) if (n.reachable && Object.hasOwn(prev.unreachableSince, n.name)) out[n.name] = seconds(now);
  return out;
}

export function updateState(prev: State, input: { snapshot: Snapshot; outcome: ApplyOutcome; now: Date; lostAfterMs?: number }): State {
  const cutoff = input.now.getTime() - START_FAILURE_MEMORY_MS;
  const kept = prev.startFailures.filter((f) => Date.parse(f.at) > cutoff);
  const { outageEnded: _prev, ...rest } = prev;
  const ended = input.lostAfterMs === undefined ? (prev.outageEnded ?? {}) : outagesEnded(prev, input.snapshot, input.now, input.lostAfterMs);
  return {
    ...rest,
    unreachableSince: unreachableFromSnapshot(input.snapshot),
    ...(Object.keys(ended).length > 0 ? { outageEnded: ended } : {}),
    startFailures: [...kept, ...startFailuresOf(input.outcome, seconds(input.now))],
  };
}

/**
 * The placements of record as a tick leaves the fleet (docs/safety.md#records-over-reports):
 * every replica of the fleet — which holds only recorded ids and the ones this
 * tick started, never an unrecorded one — where llmgw started it: the node,
 * GPUs and port of its record, its state and spec as last reported. Lost and
 * unreachable nodes' replicas stay, since their ids are still taken. A record
 * the fleet no longer shows is kept while every node it names is still
 * silent (the report that would say it is gone has not come); one on a node
 * that answered, or that cluster.yaml no longer lists, is dropped.
 */
export function placementsOf(fleet: Fleet, prev: Readonly<Record<string, PlacementRecord>>): Record<string, PlacementRecord> {
  const records = fleet.records ?? {};
  const out: Record<string, PlacementRecord> = {};
  for (const r of fleet.replicas) {
    const now = recordOf(r);
    const rec = Object.hasOwn(records, r.id) ? records[r.id] : undefined;
    out[r.id] =
      rec === undefined ? now : { ...now, ranks: rec.ranks.map((k) => ({ ...k, gpus: [...k.gpus] })), ...(rec.port === undefined ? {} : { port: rec.port }) };
  }
  for (const [id, rec] of Object.entries(prev)) {
    if (Object.hasOwn(out, id)) continue;
    const silent = rec.ranks.every((k) => {
      const node = fleet.nodeByName.get(k.node);
      return node !== undefined && node.condition !== 'reachable';
    });
    if (silent) out[id] = rec;
  }
  return out;
}

/** state.json `inventory` after this snapshot (src/fleet/inventory.ts); absent when no node of cluster.yaml has reported. */
export function recordInventory(prev: State, snapshot: Snapshot, config: Config): State {
  const counts = new Map<string, number>();
  for (const n of snapshot.nodes) if (n.reachable) counts.set(n.name, n.report.gpus.length);
  const inventory = nextInventory(prev.inventory, config.cluster.nodes, (node) => counts.get(node));
  const { inventory: _old, ...rest } = prev;
  return Object.keys(inventory).length === 0 ? rest : { ...rest, inventory };
}

/** A start llmgw sent, as its write-ahead intent (docs/safety.md#write-ahead-intents): enough to recognise the replica it makes. */
export interface StartIntent {
  replica: string;
  model: string;
  port: number;
  /** Rank order. */
  placement: { node: string; gpus: number[] }[];
  /** When the intent was written; absent: unknown (adopted only when nothing was committed to judge it by). */
  at?: string;
}

/**
 * How long before the committed snapshot's observedAt an intent may have been
 * written and still be adopted: the clocks of two holders may differ this much
 * (docs/safety.md#clocks).
 */
export const INTENT_SLACK_MS = 5 * 60_000;

/** The intents of a plan's starts: what a tick records before any start request goes out. */
export function intentsOf(
  starts: readonly { op: string; replica: string; model: string; port?: number; placement: { node: string; gpus: number[] }[] }[],
): StartIntent[] {
  const out: StartIntent[] = [];
  for (const a of starts) {
    if (a.op !== 'start' || a.port === undefined) continue;
    out.push({ replica: a.replica, model: a.model, port: a.port, placement: a.placement.map((p) => ({ node: p.node, gpus: [...p.gpus] })) });
  }
  return out;
}

/**
 * The records with every intent adopted that a reachable node now reports
 * exactly (same id, node, rank, GPUs and port) and that has no record yet:
 * a start whose tick died before state.json was committed is llmgw's own,
 * not unrecorded (no orphan holding GPUs, no second copy started). Only
 * intents written after the committed snapshot was observed (less
 * INTENT_SLACK_MS) count: an older one was seen by a tick that committed
 * since, so what it did not adopt then it never adopts.
 */
export function adoptIntents(state: State, intents: readonly StartIntent[], snapshot: Snapshot, committedAt: string | null = null): State {
  if (intents.length === 0 || state.placements === undefined) return state;
  const committed = committedAt === null ? Number.NaN : Date.parse(committedAt);
  // Nothing committed to judge by (a repo never reconciled, a hand-written snapshot): every intent counts.
  const since = Number.isNaN(committed) ? null : committed - INTENT_SLACK_MS;
  const copies = new Map<string, { node: string; rank: number; gpus: number[]; port: number | null; slurmJob?: string }[]>();
  for (const n of snapshot.nodes) {
    if (!n.reachable) continue;
    for (const r of n.report.replicas) {
      let list = copies.get(r.id);
      if (!list) copies.set(r.id, (list = []));
      list.push({ node: n.name, rank: r.rank ?? 0, gpus: r.gpus, port: replicaPort(r), ...(r.slurmJob !== undefined ? { slurmJob: r.slurmJob } : {}) });
    }
  }
  let placements: Record<string, PlacementRecord> | null = null;
  for (const intent of intents) {
    if (Object.hasOwn(state.placements, intent.replica)) continue;
    const at = intent.at === undefined ? Number.NaN : Date.parse(intent.at);
    if (since !== null && !(at >= since)) continue;
    const record = startRecord(intent);
    const seen = copies.get(intent.replica);
    if (seen === undefined || !matchesRecord(record, seen)) continue;
    placements ??= { ...state.placements };
    placements[intent.replica] = record;
  }
  return placements === null ? state : { ...state, placements };
}

/**
 * state.json as a tick that gathers the fleet reads it: with no placements of
 * record kept (an older state.json, a lost or broken one) they are seeded
 * once from `previous`, the snapshot llmgw itself committed — never from the
 * fresh observation — and so is the inventory; a repo never reconciled seeds
 * nothing, so whatever its nodes already run is unrecorded.
 */
export function seedState(state: State, previous: Snapshot | null): State {
  let out = state;
  if (out.placements === undefined) out = { ...out, placements: seedFromSnapshot(previous) };
  if (out.inventory === undefined && previous !== null) {
    const inventory: Record<string, number> = {};
    for (const n of previous.nodes) {
      const report = n.reachable ? n.report : n.lastReport;
      if (report) inventory[n.name] = report.gpus.length;
    }
    if (Object.keys(inventory).length > 0) out = { ...out, inventory };
  }
  return out;
}
