// What state a recorded replica is in (docs/protocol.md), from what was just seen.
// Pure: the process check and the probe happen in report.ts.

import type { ReplicaState } from '../types/snapshot.js';
import type { HealthRecord, ReplicaRecord } from './replica-store.js';

/**
 * A replica that has answered its health check before and stops answering is
 * still `running` for this long: an engine under heavy load may miss a
 * one-second probe, and flapping it out of the routers' tables (or replacing
 * it) for that would hurt more than it helps. Silent for longer, it is `failed`
 * and the plan replaces it. A process that exits is `failed` at once.
 */
export const UNHEALTHY_GRACE_MS = 120_000;

export interface Observed {
  alive: boolean;
  healthy: boolean;
  now: Date;
}

export interface Derived {
  state: ReplicaState;
  /** The health record to keep (unchanged object when nothing changed). */
  health: HealthRecord;
  /** Said in the report's warnings: why a replica is failed or not answering. */
  warning?: string;
}

export function fail(rec: ReplicaRecord, h: HealthRecord, now: Date, reason: string): Derived {
  const failed = { at: now.toISOString(), reason };
  return { state: 'failed', health: { ...h, failed }, warning: `replica ${rec.replica} failed: ${reason}` };
}

export function deriveState(rec: ReplicaRecord, h: HealthRecord, seen: Observed): Derived {
  const { now } = seen;
  // Failed is sticky: the plan that stops a failed replica must not see it flip back.
  if (h.failed) return { state: 'failed', health: h, warning: `replica ${rec.replica} failed: ${h.failed.reason}` };
  if (!seen.alive) return fail(rec, h, now, `its process (pid ${rec.pid}) exited; log: ${rec.log}`);
  if (seen.healthy) return { state: 'running', health: { ...h, healthyAt: now.toISOString(), firstHealthyAt: h.firstHealthyAt ?? now.toISOString() } };
  if (h.healthyAt !== undefined) {
    const silentMs = now.getTime() - Date.parse(h.healthyAt);
    if (silentMs > UNHEALTHY_GRACE_MS) return fail(rec, h, now, `health check unanswered since ${h.healthyAt}`);
    return { state: 'running', health: h, warning: `replica ${rec.replica} did not answer its health check; last answered ${h.healthyAt}` };
  }
  const startedMs = Date.parse(rec.startedAt);
  if (now.getTime() - startedMs > rec.startTimeoutSeconds * 1000) {
    return fail(rec, h, now, `not healthy within startTimeoutSeconds (${rec.startTimeoutSeconds} s)`);
  }
  return { state: 'starting', health: h };
}
