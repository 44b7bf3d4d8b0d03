// Making room (docs/config.md#on-demand-models): a model with demand that cannot
// be placed for lack of GPUs may stop idle replicas of other models above their
// `min` — lowest priority first, then least recently used, never of a model of
// higher priority than the asker, and only as many as its placement needs.
//
// "As many as needed" is decided by trying: the plan is made again with the
// candidates' GPUs counted as free (they will be once drained), one candidate
// more each time, and the first set that lets the asker be placed is then
// pruned of any member it could do without (a replica on the wrong class of
// GPU frees nothing the asker can use). Each victim's model loses the replica
// from its count too, or the plan would place it again on the GPUs just freed.

import type { Fleet, FleetReplica } from '../types/fleet.js';
import type { ModelConfig } from '../types/config.js';
import type { Plan } from '../types/plan.js';
import type { State } from '../types/state.js';
import { planFleet } from './plan-fleet.js';
import { placementOrder } from './placement-order.js';
import { demandOf } from './scale.js';
import { idleEnough } from './idle-enough.js';

/** How many candidates one asker may try; beyond this a fleet is too big to make room by trial, and nothing is evicted. */
const MAX_CANDIDATES = 64;

export interface Eviction {
  replica: string;
  model: string;
  /** The model it makes room for. */
  for: string;
}

export interface Evicted {
  /** The fleet with each victim's model one replica fewer per victim. */
  fleet: Fleet;
  plan: Plan;
  evictions: Eviction[];
}

/** The fewest replicas a model keeps: its range's min, or its fixed count (a fixed count is never evicted from). */
function floorOf(m: ModelConfig): number {
  return m.scale ? m.scale.min : m.replicas;
}

/** Models the plan could not place whose demand is real now: requests waiting, or in flight above target. */
function askers(fleet: Fleet, plan: Plan): ModelConfig[] {
  const unplaced = new Set(plan.unplaceable.map((u) => u.model));
  const demand = demandOf(fleet);
  const routable = (m: string) => fleet.replicas.filter((r) => r.model === m && r.state === 'running' && !r.lost && !r.draining).length;
  return placementOrder(fleet.config.models).filter((m) => {
    if (!unplaced.has(m.name)) return false;
    const d = demand.get(m.name);
    if (!d) return false;
    const n = routable(m.name);
    return d.waiting > 0 || (m.scale !== undefined && n > 0 && d.inflight / n > m.scale.targetInflight);
  });
}

/** The fleet with each victim's model one replica fewer per victim. */
export function withFewer(fleet: Fleet, victims: readonly FleetReplica[]): Fleet {
  if (victims.length === 0) return fleet;
  const fewer = new Map<string, number>();
  for (const v of victims) fewer.set(v.model, (fewer.get(v.model) ?? 0) + 1);
  const models = fleet.config.models.map((m) => (fewer.has(m.name) ? { ...m, replicas: Math.max(0, m.replicas - (fewer.get(m.name) ?? 0)) } : m));
  return { ...fleet, config: { ...fleet.config, models } };
}

/** `given`: stops decided before (yield, src/plan/yield.ts), replica id -> reason: in every plan made here, never evicted again. */
export function planWithEvictions(fleet: Fleet, state: State, given: ReadonlyMap<string, string> = new Map()): Evicted {
  const first = planFleet(fleet, state, given.size > 0 ? { stops: given } : undefined);
  const wanting = askers(fleet, first);
  if (wanting.length === 0) return { fleet, plan: first, evictions: [] };
  const chosen: { r: FleetReplica; for: string }[] = [];
  const reasons = (set: readonly { r: FleetReplica; for: string }[]) => new Map([...given, ...set.map((c) => [c.r.id, `evicted for ${c.for}`] as const)]);
  const placed = (asker: string, set: readonly { r: FleetReplica; for: string }[]) => {
    const trial = planFleet(
      withFewer(
        fleet,
        set.map((c) => c.r),
      ),
      state,
      { stops: reasons(set), assumeFreed: true },
    );
    return !trial.unplaceable.some((u) => u.model === asker);
  };
  for (const asker of wanting) {
    const taken = new Set([...given.keys(), ...chosen.map((c) => c.r.id)]);
    const left = new Map<string, number>();
    for (const m of fleet.config.models) {
      const present = fleet.replicas.filter((r) => r.model === m.name && !r.lost && !r.draining && r.state !== 'failed' && !given.has(r.id)).length;
      left.set(m.name, present - chosen.filter((c) => c.r.model === m.name).length - floorOf(m));
    }
    const byName = new Map(fleet.config.models.map((m) => [m.name, m]));
    const candidates = fleet.replicas
      .filter((r) => {
        const m = byName.get(r.model);
        return (
          m !== undefined &&
          r.model !== asker.name &&
          m.priority <= asker.priority &&
          r.state === 'running' &&
          !r.lost &&
          !r.unreachable &&
          !r.draining &&
          !taken.has(r.id) &&
          idleEnough(fleet, r)
        );
      })
      .sort(
        (a, b) =>
          (byName.get(a.model)?.priority ?? 0) - (byName.get(b.model)?.priority ?? 0) ||
          (b.idleSeconds ?? 0) - (a.idleSeconds ?? 0) ||
          (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
      )
      .slice(0, MAX_CANDIDATES);
    const mine: { r: FleetReplica; for: string }[] = [];
    let enough = false;
    for (const r of candidates) {
      if ((left.get(r.model) ?? 0) <= 0) continue;
      left.set(r.model, (left.get(r.model) ?? 0) - 1);
      mine.push({ r, for: asker.name });
      if (placed(asker.name, [...chosen, ...mine])) {
        enough = true;
        break;
      }
    }
    if (!enough) continue;
    // Prune, first chosen first: keep only the victims the placement needs.
    for (const c of [...mine]) {
      const without = mine.filter((x) => x !== c);
      if (without.length < mine.length && placed(asker.name, [...chosen, ...without])) mine.splice(mine.indexOf(c), 1);
    }
    chosen.push(...mine);
  }
  if (chosen.length === 0) return { fleet, plan: first, evictions: [] };
  const evictedFleet = withFewer(
    fleet,
    chosen.map((c) => c.r),
  );
  const plan = planFleet(evictedFleet, state, { stops: reasons(chosen) });
  return { fleet: evictedFleet, plan, evictions: chosen.map((c) => ({ replica: c.r.id, model: c.r.model, for: c.for })) };
}
