// Stalled and ejected replicas (docs/placement.md#stalled-and-ejected-replicas). A
// router ejects on its own and at once; the reconciler replaces only a replica
// that stays out: stalled (its engine's progress counter stopped with requests
// running), or ejected by every router that routes it — one router's view is
// that router's trouble (a flaky link), all of them together are the replica's.

import type { FleetReplica } from '../types/fleet.js';
import { LIVENESS_DEFAULTS, type ModelConfig } from '../types/config.js';
import type { RouterObservation } from '../types/snapshot.js';

/**
 * When every router that routes `id` ejected it, the latest `since` of those
 * runs (the moment the last of them took it out); null when some router that
 * routes it still has it in rotation, or none answered. A router whose table is
 * unknown (an older router) counts as routing every replica.
 */
export function ejectedSince(id: string, model: string, routers: readonly RouterObservation[]): string | null {
  let latest: string | null = null;
  let routing = 0;
  for (const r of routers) {
    if (!r.reachable) continue;
    const table = r.report.table;
    if (table !== undefined && !(table[model] ?? []).some((e) => e.replica === id)) continue;
    routing += 1;
    const ej = r.report.ejected?.[id];
    if (ej === undefined) return null;
    if (latest === null || Date.parse(ej.since) > Date.parse(latest)) latest = ej.since;
  }
  return routing === 0 ? null : latest;
}

export interface Stuck {
  kind: 'stalled' | 'ejected';
  since: string;
}

/** Why a running replica serves nothing, and since when; null when it serves. Stalled is told first: it is the engine's own word. */
export function stuckOf(r: FleetReplica): Stuck | null {
  if (r.state !== 'running') return null;
  if (r.stalledSince !== undefined) return { kind: 'stalled', since: r.stalledSince };
  if (r.ejectedSince !== undefined) return { kind: 'ejected', since: r.ejectedSince };
  return null;
}

/** The reason a stuck replica is replaced at `nowMs`, or null while it is within `liveness.replaceAfter`. */
export function replaceStuckReason(r: FleetReplica, model: ModelConfig, nowMs: number): string | null {
  const stuck = stuckOf(r);
  if (stuck === null) return null;
  const afterMs = (model.liveness ?? LIVENESS_DEFAULTS).replaceAfterMs;
  const sinceMs = Date.parse(stuck.since);
  if (Number.isNaN(sinceMs) || nowMs - sinceMs < afterMs) return null;
  return stuck.kind === 'stalled' ? `${STALLED} since ${stuck.since}` : `${EJECTED} since ${stuck.since}`;
}

export const STALLED = 'stalled';
export const EJECTED = 'ejected by every router';

/** A stop of a stuck replica does not drain: it serves nothing, a drain would only wait for drainTimeout. */
export function isStuckReason(reason: string): boolean {
  return reason.startsWith(`${STALLED} since `) || reason.startsWith(`${EJECTED} since `);
}
