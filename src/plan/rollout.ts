// Rollouts (docs/safety.md#rollouts): a model with `rollout` whose spec changed
// first starts `canary` new replicas beside the old ones; once they all run
// (and so are routed), after `hold` their error rate over the routers' served
// counters decides: at most maxErrorRate promotes them and the rest roll one
// at a time; above it, or a canary failing, stops the canaries, keeps the old
// spec serving and remembers the spec as failed. Pure: the stage follows from
// the fleet as observed and what state.json remembers (src/types/state.ts),
// and the plan carries what state.json should remember next.

import { duration } from '../text/format.js';
import type { ModelConfig, RolloutConfig } from '../types/config.js';
import type { Fleet, FleetReplica } from '../types/fleet.js';
import type { RolloutPlan, RolloutRecord, RolloutStage, ServedBaseline } from '../types/plan.js';
import type { State } from '../types/state.js';
import { SPEC_CHANGED, type ModelReplicas } from './classify.js';
import { drainVerdict } from './drain.js';
import { compareNames } from './replica-ids.js';
import { surplusOrder } from './surplus.js';

/**
 * Fewer requests than this over the hold are no evidence: the hold goes on
 * until the canaries have served this many (a canary nobody used is never
 * promoted on faith).
 */
export const MIN_HOLD_REQUESTS = 20;

export interface RolloutDecision {
  /** New replicas of the new spec to place this tick. */
  place: number;
  /** Their reason. */
  startReason: string;
  /** Replicas to stop (each drains first when it may be routed). */
  stops: { replica: FleetReplica; reason: string }[];
  plan: RolloutPlan;
}

const percent = (x: number) => `${Math.round(x * 1000) / 10}%`;

/** Per router, the served counters summed over `ids`; null unless every router answered with counters. */
export function servedOf(fleet: Fleet, ids: readonly string[]): Record<string, ServedBaseline> | null {
  const observed = new Map((fleet.routers ?? []).map((r) => [r.name, r]));
  const out: Record<string, ServedBaseline> = {};
  for (const rt of fleet.config.cluster.routers) {
    const obs = observed.get(rt.name);
    if (!obs || !obs.reachable || obs.report.served === undefined) return null;
    let requests = 0;
    let errors = 0;
    for (const id of ids) {
      const s = Object.hasOwn(obs.report.served, id) ? obs.report.served[id] : undefined;
      if (s) {
        requests += s.requests;
        errors += s.errors;
      }
    }
    out[rt.name] = { startedAt: obs.report.startedAt, requests, errors };
  }
  return out;
}

/** What the canaries served since the hold began; a router that restarted since counts from its start. */
export function servedSince(baseline: Record<string, ServedBaseline>, now: Record<string, ServedBaseline>): { requests: number; errors: number } {
  let requests = 0;
  let errors = 0;
  for (const [router, cur] of Object.entries(now)) {
    const base = Object.hasOwn(baseline, router) ? baseline[router] : undefined;
    const same = base !== undefined && base.startedAt === cur.startedAt;
    requests += Math.max(0, cur.requests - (same ? base.requests : 0));
    errors += Math.max(0, cur.errors - (same ? base.errors : 0));
  }
  return { requests, errors };
}

interface Parts {
  model: ModelConfig;
  rollout: RolloutConfig;
  spec: string;
  /** New-spec replicas that count (starting or running). */
  fresh: FleetReplica[];
  /** Old replicas still counted as serving (not draining), stoppable or not. */
  old: FleetReplica[];
  /** Of `old`, those a stop can reach now. */
  stoppable: FleetReplica[];
  /** New-spec replicas that failed (classify stops them already). */
  failedFresh: FleetReplica[];
  /** Replicas of the model draining now. */
  draining: number;
  now: string;
}

function decision(p: Parts, stage: RolloutStage, text: string, next: RolloutRecord, more: Partial<RolloutDecision> = {}): RolloutDecision {
  return {
    place: 0,
    startReason: text,
    stops: [],
    ...more,
    plan: { model: p.model.name, spec: p.spec, stage, text, next },
  };
}

function failed(p: Parts, reason: string): RolloutDecision {
  const text = `rollout failed for spec ${p.spec}: ${reason}; the old spec keeps serving`;
  const next: RolloutRecord = { spec: p.spec, stage: 'failed', reason, failedAt: p.now };
  const stops = p.fresh.map((replica) => ({ replica, reason: `rollout failed for spec ${p.spec}` }));
  return decision(p, 'failed', text, next, { stops });
}

/** Old replicas beyond `replicas` are surplus at any stage: the longest unused first. */
function surplusOld(p: Parts, keep: number): { replica: FleetReplica; reason: string }[] {
  const extra = p.old.length - keep;
  if (extra <= 0) return [];
  const order = surplusOrder(p.model.name);
  return [...p.stoppable]
    .sort(order)
    .slice(0, extra)
    .map((replica) => ({ replica, reason: `surplus (${p.old.length} of ${keep} on the old spec)` }));
}

/** After promotion: one replica in transition at a time — surge one new, then drain one old, then the next. */
function rolling(p: Parts): RolloutDecision {
  const n = p.model.replicas;
  const next: RolloutRecord = { spec: p.spec, stage: 'rolling' };
  const on = p.fresh.filter((r) => r.state === 'running').length;
  const text = `rolling to spec ${p.spec}: ${on} of ${n} on the new spec`;
  if (p.fresh.some((r) => r.state !== 'running') || p.draining > 0) return decision(p, 'rolling', text, next);
  if (p.fresh.length + p.old.length > n && p.stoppable.length > 0) {
    const [replica] = [...p.stoppable].sort(surplusOrder(p.model.name));
    if (replica !== undefined) return decision(p, 'rolling', text, next, { stops: [{ replica, reason: `replaced by spec ${p.spec} (rollout)` }] });
  }
  // Surge one; and any old replica gone meanwhile is placed again at once.
  const short = Math.max(0, n - p.fresh.length - p.old.length);
  const place = Math.min(n - p.fresh.length, 1 + short);
  return decision(p, 'rolling', text, next, { place: Math.max(0, place), startReason: `rollout to spec ${p.spec}: ${p.fresh.length + 1} of ${n}` });
}

/** Canaries starting, holding, judged. */
function canary(p: Parts, rec: RolloutRecord | undefined, fleet: Fleet): RolloutDecision {
  const n = p.model.replicas;
  const c = Math.min(p.rollout.canary, n);
  const head = `canary ${c} of ${n} for spec ${p.spec}`;
  const base: RolloutRecord = { spec: p.spec, stage: 'canary' };
  const bad = p.failedFresh[0];
  if (bad) return failed(p, `canary ${bad.id} failed${bad.error ? `: ${bad.error}` : ''}`);
  const unchecked = p.fresh.find((r) => r.check?.ok === false);
  if (unchecked) return failed(p, `canary ${unchecked.id} fails its answer check${unchecked.check?.error ? `: ${unchecked.check.error}` : ''}`);
  const stops = surplusOld(p, n);
  if (p.fresh.length < c) return decision(p, 'canary', `${head}: starting`, base, { place: c - p.fresh.length, startReason: head, stops });
  if (p.fresh.some((r) => r.state !== 'running' || r.unreachable)) return decision(p, 'canary', `${head}: starting`, base, { stops });

  const ids = p.fresh.map((r) => r.id).sort(compareNames);
  const holdSince = rec?.stage === 'canary' ? rec.holdSince : undefined;
  const heldBaseline = rec?.stage === 'canary' ? rec.baseline : undefined;
  const holding = holdSince !== undefined && heldBaseline !== undefined && JSON.stringify(rec?.canaries ?? []) === JSON.stringify(ids);
  const holdText = `${head}: holding ${duration(Math.round(p.rollout.holdMs / 1000))}, then judged by its error rate (at most ${percent(p.rollout.maxErrorRate)})`;
  if (!holding) {
    // The hold begins now: the canaries run, and this tick's table routes them.
    const baseline = servedOf(fleet, ids);
    if (baseline === null) return decision(p, 'canary', `${head}: waiting for every router to answer to begin the hold`, base, { stops });
    return decision(p, 'hold', holdText, { ...base, holdSince: p.now, canaries: ids, baseline }, { stops });
  }
  const record: RolloutRecord = { ...base, holdSince, canaries: ids, baseline: heldBaseline };
  if (Date.parse(p.now) - Date.parse(holdSince) < p.rollout.holdMs) return decision(p, 'hold', holdText, record, { stops });
  if (fleet.config.cluster.routers.length > 0) {
    const current = servedOf(fleet, ids);
    if (current === null) return decision(p, 'hold', `${head}: hold over, waiting for every router to answer`, record, { stops });
    const { requests, errors } = servedSince(heldBaseline, current);
    if (requests < MIN_HOLD_REQUESTS) {
      return decision(p, 'hold', `${head}: hold over, waiting for ${MIN_HOLD_REQUESTS} requests to judge by`, record, { stops });
    }
    const rate = errors / requests;
    if (rate > p.rollout.maxErrorRate) {
      return failed(p, `error rate ${percent(rate)} (${errors} of ${requests} requests) above maxErrorRate ${percent(p.rollout.maxErrorRate)}`);
    }
  }
  // Promoted: the rest roll from this very tick.
  const r = rolling(p);
  return { ...r, stops: [...stops, ...r.stops.filter((s) => !stops.some((x) => x.replica.id === s.replica.id))] };
}

/**
 * The rollout of one model this tick, or null when none is under way: no
 * `rollout`, no replica of another spec, or the model scaled to zero.
 */
export function planRollout(group: ModelReplicas, fleet: Fleet, state: State): RolloutDecision | null {
  const { model, spec } = group;
  if (model.rollout === null || spec === null || model.replicas === 0) return null;
  const stored = state.lifecycle?.rollouts ?? {};
  const rec = Object.hasOwn(stored, model.name) && stored[model.name]?.spec === spec ? stored[model.name] : undefined;
  const staleKept = group.kept.filter((r) => r.unreachable && r.spec !== null && r.spec !== spec);
  const oldNotKept = group.notKept.filter((n) => n.reason === SPEC_CHANGED).map((n) => n.replica);
  const others = group.notKept.filter((n) => n.reason !== SPEC_CHANGED).map((n) => n.replica);
  const mine = fleet.replicas.filter((r) => r.model === model.name && !r.lost);
  const p: Parts = {
    model,
    rollout: model.rollout,
    spec,
    fresh: group.kept.filter((r) => !staleKept.includes(r)),
    // Replicas of the new spec that must move (a cordon) roll with the old ones.
    old: [...oldNotKept, ...others, ...staleKept],
    stoppable: [...oldNotKept, ...others],
    failedFresh: mine.filter((r) => r.state === 'failed' && !r.draining && r.spec === spec),
    // A drain that ends this tick (its stop is in this plan) no longer holds the next step back.
    draining: mine.filter((r) => r.draining && r.state === 'running' && !drainVerdict(r, r.draining, fleet).done).length,
    now: fleet.now,
  };
  if (rec?.stage === 'failed') {
    const text = `rollout failed for spec ${spec}: ${rec.reason ?? 'canaries failed'}; the old spec keeps serving`;
    // Rolled back: the old replicas count, nothing of the failed spec starts.
    const stops = [...p.fresh.map((replica) => ({ replica, reason: `rollout failed for spec ${spec}` })), ...surplusOld(p, model.replicas)];
    return decision(p, 'failed', text, rec, { stops });
  }
  if (oldNotKept.length + staleKept.length === 0) return null;
  return rec?.stage === 'rolling' ? rolling(p) : canary(p, rec, fleet);
}
