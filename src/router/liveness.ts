// Router-local ejection (docs/operations.md#ejection), after Envoy's outlier
// detection: a replica whose requests fail `consecutiveErrors` times in a row,
// or that is *stalled* (requests in flight, one of them streaming, and not one
// response byte on any of them for `stallAfter`), leaves this router's
// rotation for `ejectFor`, doubling on each repeat within a run up to 5
// minutes. At most ⌈n/2⌉ of a model's n replicas are out at once: a router
// that sees half a model fail suspects itself or the load before the replicas,
// and keeps the rest serving. A lone replica may go (⌈1/2⌉ = 1): its requests
// then wait as for a model at 0.
//
// These are pure decisions over a replica's cell and the time; exchange.ts and
// server.ts act on them (retry, end streams, wake waiting requests).

import type { RouterEjection } from '../types/snapshot.js';

export interface LivenessSettings {
  consecutiveErrors: number;
  stallAfterMs: number;
  ejectForMs: number;
  waitTimeoutMs: number;
}

export const DEFAULT_LIVENESS: LivenessSettings = {
  consecutiveErrors: 5,
  stallAfterMs: 60_000,
  ejectForMs: 30_000,
  waitTimeoutMs: 5 * 60_000,
};

/** An ejection never lasts longer than this, however often it repeats. */
export const MAX_EJECT_MS = 5 * 60_000;

export type EjectReason = RouterEjection['reason'];

/** A replica's ejection history: the current run of episodes, and whether it is out now. */
export interface EjectionRun {
  sinceMs: number;
  untilMs: number;
  reason: EjectReason;
  count: number;
  out: boolean;
}

/**
 * The next episode for a replica whose last run is `run`: the same run when the
 * last episode ended less than 2 × ejectFor before this one began (so `since`
 * stays, `count` grows and the time doubles), else a new run.
 *
 * An episode begins when its trouble did: a failure ejects at once (`beganMs`
 * is now), but a stall is seen only stallAfter after the replica went quiet, so
 * its `beganMs` is that quiet start. Otherwise a hung replica under load (back
 * after ejectFor, quiet again at once, ejected stallAfter later) would begin a
 * new run every time with the defaults (stallAfter 60 s = 2 × ejectFor 30 s):
 * no run would last, and the reconciler, which replaces a replica ejected for
 * replaceAfter since its run began, would never replace it. A run's `since` is
 * its first episode's beginning for the same reason: a hung replica has been
 * out of service since it went quiet, so it is replaced replaceAfter after
 * that (2 min with the defaults), not replaceAfter after the sweep saw it.
 */
export function nextEjection(run: EjectionRun | null, reason: EjectReason, nowMs: number, ejectForMs: number, beganMs = nowMs): EjectionRun {
  const same = run !== null && beganMs - run.untilMs < 2 * ejectForMs;
  const count = same ? run.count + 1 : 1;
  const duration = Math.min(ejectForMs * 2 ** Math.min(count - 1, 30), MAX_EJECT_MS);
  return { sinceMs: same ? run.sinceMs : beganMs, untilMs: nowMs + duration, reason, count, out: true };
}

/** How many of a model's `n` replicas may be out of rotation at once. */
export function maxOut(n: number): number {
  return Math.ceil(n / 2);
}

/** Stalled: at least one streaming request in flight and no response byte since `quietSinceMs` for stallAfter. */
export function isStalled(streaming: number, quietSinceMs: number, nowMs: number, stallAfterMs: number): boolean {
  return streaming > 0 && nowMs - quietSinceMs >= stallAfterMs;
}

export function ejectionOf(run: EjectionRun): RouterEjection {
  return { since: new Date(run.sinceMs).toISOString(), until: new Date(run.untilMs).toISOString(), reason: run.reason, count: run.count };
}
