// When the routers' demand calls for a tick out of schedule
// (docs/operations.md#which-trigger-sees-what): requests waiting at a router
// for a model with no routable replica (a router holds a request only for want
// of one: at 0, or every replica starting or ejected), or a replica ejected as
// stalled. Pure: the demand watch (demand-watch.ts) feeds it the routers' usage.
//
// Not forever for the same thing: a condition triggers when it appears, and
// again only every `repeatMs` while it lasts and its model has no replica of
// record starting (while one starts, another tick cannot help: the fast route
// of fast-route.ts routes it the moment it runs).

import type { PlacementRecord } from '../types/state.js';
import type { RouterObservation } from '../types/snapshot.js';

/** Default quiet time before a lasting condition triggers again. */
export const DEMAND_REPEAT_MS = 60_000;

export interface DemandCondition {
  /** What makes it the same condition from one look to the next. */
  key: string;
  model: string;
  /** For the log: `3 waiting at rt-a`, `qwen-7b-0 ejected as stalled by rt-a`. */
  why: string;
}

/** The conditions the routers report now, in router order then model order. */
export function demandConditions(routers: readonly RouterObservation[], modelOf: (replica: string) => string | undefined): DemandCondition[] {
  const byKey = new Map<string, DemandCondition>();
  const waiting = new Map<string, { count: number; at: string[] }>();
  for (const r of routers) {
    if (!r.reachable) continue;
    for (const [model, w] of Object.entries(r.report.waiting ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      if (w.count <= 0) continue;
      const seen = waiting.get(model) ?? { count: 0, at: [] };
      waiting.set(model, { count: seen.count + w.count, at: [...seen.at, r.name] });
    }
    for (const [replica, e] of Object.entries(r.report.ejected ?? {})) {
      if (e.reason !== 'stalled') continue;
      const key = `stalled:${replica}`;
      if (!byKey.has(key)) byKey.set(key, { key, model: modelOf(replica) ?? '', why: `${replica} ejected as stalled by ${r.name}` });
    }
  }
  const out: DemandCondition[] = [];
  for (const [model, w] of waiting) out.push({ key: `waiting:${model}`, model, why: `${w.count} waiting for ${model} at ${w.at.join(', ')}` });
  return [...out, ...byKey.values()];
}

/** The models with a replica of record starting (state.json placements). */
export function startingModels(placements: Readonly<Record<string, PlacementRecord>>): Set<string> {
  return new Set(
    Object.values(placements)
      .filter((p) => p.state === 'starting')
      .map((p) => p.model),
  );
}

/**
 * The trigger's memory: given what holds now, the conditions that call for a
 * tick. New ones always; lasting ones every `repeatMs`, unless their model has
 * a replica starting. A condition that ends is forgotten, so its return triggers.
 */
export function demandTrigger(
  repeatMs = DEMAND_REPEAT_MS,
): (now: readonly DemandCondition[], starting: ReadonlySet<string>, nowMs: number) => DemandCondition[] {
  const fired = new Map<string, number>();
  return (now, starting, nowMs) => {
    const present = new Set(now.map((c) => c.key));
    for (const key of [...fired.keys()]) if (!present.has(key)) fired.delete(key);
    const out: DemandCondition[] = [];
    for (const c of now) {
      const last = fired.get(c.key);
      if (last !== undefined && (nowMs - last < repeatMs || starting.has(c.model))) continue;
      fired.set(c.key, nowMs);
      out.push(c);
    }
    return out;
  };
}
