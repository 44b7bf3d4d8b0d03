// Idleness as a lower bound (docs/placement.md). A router that has not served a
// replica since it started can only vouch for "unused since I started", so it
// contributes its own start time; the newest of every router's evidence and the
// replica's own start is when the replica was last possibly used. A router that
// did not answer could have served it a second ago, so then nothing is known —
// and unknown must never read as idle (or one router restart would make the
// whole fleet look idle) nor as busy-forever. A replica with a request in flight
// on any router is in use now, however long ago that request began.

import type { RouterConfig } from '../types/config.js';
import type { RouterObservation, RouterUsage } from '../types/snapshot.js';

/** Every configured router's usage, or null unless there is at least one and all answered. */
export function answeredRouters(routers: readonly RouterConfig[], observed: readonly RouterObservation[]): RouterUsage[] | null {
  if (routers.length === 0) return null;
  const byName = new Map(observed.map((o) => [o.name, o]));
  const usages: RouterUsage[] = [];
  for (const r of routers) {
    const obs = byName.get(r.name);
    if (!obs || !obs.reachable) return null;
    usages.push(obs.report);
  }
  return usages;
}

export interface Idleness {
  idleSeconds: number;
  idleSince: string;
}

/** The known lower bound of a running replica's unused time, or null when unknown. */
export function idleness(replicaId: string, startedAt: string | null, usages: RouterUsage[] | null, nowMs: number): Idleness | null {
  if (usages === null || startedAt === null) return null;
  let best = startedAt;
  let bestMs = Date.parse(startedAt);
  if (Number.isNaN(bestMs)) return null;
  for (const u of usages) {
    // lastUsed is when a request last acquired it: a stream that began an hour ago and still runs is use now.
    // (An inherited key reads as a function or undefined, never > 0.)
    if ((u.inflight?.[replicaId] ?? 0) > 0) {
      return { idleSeconds: 0, idleSince: new Date(nowMs).toISOString() };
    }
    const t = (Object.hasOwn(u.lastUsed, replicaId) ? u.lastUsed[replicaId] : undefined) ?? u.startedAt;
    const ms = Date.parse(t);
    if (Number.isNaN(ms)) return null;
    if (ms > bestMs) {
      best = t;
      bestMs = ms;
    }
  }
  // A clock ahead of ours is "used just now", never negative idleness.
  return { idleSeconds: Math.max(0, Math.floor((nowMs - bestMs) / 1000)), idleSince: best };
}
