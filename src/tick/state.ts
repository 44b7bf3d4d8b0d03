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
import type { Fleet, FleetReplica } from '../types/fleet.js';
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

/** A fleet replica's ranks as state.json records them. */
function recordOf(r: FleetReplica): PlacementRecord {
  return {
    model: r.model,
    state: r.state,
    ranks: r.ranks.map((k) => ({ node: k.node, rank: k.rank, gpus: [...k.gpus] })),
    ...(r.port === null ? {} : { port: r.port }),
    ...(r.spec === null ? {} : { spec: r.spec }),
  };
}

/**
 * The placements of record as a tick leaves the fleet (docs/protocol.md#the-snapshot):
 * every replica it knows of, where it runs — lost and unreachable nodes'
 * replicas included, since their ids are still taken. A record the fleet no
 * longer shows is kept while every node it names is still silent (the report
 * that would say it is gone has not come); one on a node that answered, or
 * that cluster.yaml no longer lists, is dropped.
 */
export function placementsOf(fleet: Fleet, prev: Readonly<Record<string, PlacementRecord>>): Record<string, PlacementRecord> {
  const out: Record<string, PlacementRecord> = {};
  for (const r of fleet.replicas) out[r.id] = recordOf(r);
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
