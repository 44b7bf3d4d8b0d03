// On-demand models (docs/config.md#on-demand-models): the one decision that turns
// a models.yaml range into this tick's count. Pure: from the fleet as observed
// (the routers' in flight and waiting, each replica's idleness) and state.json's
// scaling record, to the config every later step plans with — so placement,
// surplus, rollouts, router tables, events and STATUS.md all read one number,
// and `llmgw plan` (same snapshot, same state, same time) decides the same.
//
// Up is fast and down is slow on purpose: a request that waits costs a user,
// a replica that idles a while costs only GPU time, and a model that flaps
// pays its load time again on every flap.

import { duration } from '../text/format.js';
import type { Config, ModelConfig, ScaleConfig } from '../types/config.js';
import type { Fleet, FleetReplica } from '../types/fleet.js';
import type { ScalingDecision, ScalingRecord, State } from '../types/state.js';

/** One model's demand as the routers see it now (docs/placement.md#in-flight-and-waiting). */
export interface Demand {
  /** Requests sent to its replicas and not finished, summed over routers. */
  inflight: number;
  /** Requests held for want of a replica, summed over routers. */
  waiting: number;
  /** router -> its waiting count, only routers with some, by name. */
  waitingAt: [router: string, count: number][];
}

export interface ScaleOutcome {
  /** The config with each ranged model's `replicas` set to its decided count. */
  config: Config;
  /** state.json's `scaling` as this tick leaves it; absent when no model is ranged. */
  scaling: Record<string, ScalingRecord> | undefined;
  /** The decisions that changed a count this tick, in models.yaml order. */
  decisions: (ScalingDecision & { model: string })[];
}

/** Every model's demand from the routers that answered (one that did not adds nothing it cannot vouch for). */
export function demandOf(fleet: Fleet): Map<string, Demand> {
  const out = new Map<string, Demand>();
  const of = (model: string): Demand => {
    let d = out.get(model);
    if (!d) out.set(model, (d = { inflight: 0, waiting: 0, waitingAt: [] }));
    return d;
  };
  for (const r of [...(fleet.routers ?? [])].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (!r.reachable) continue;
    for (const [id, n] of Object.entries(r.report.inflight ?? {})) {
      const model = fleet.replicaById.get(id)?.model;
      if (model !== undefined && n > 0) of(model).inflight += n;
    }
    for (const [model, w] of Object.entries(r.report.waiting ?? {})) {
      if (w.count <= 0) continue;
      const d = of(model);
      d.waiting += w.count;
      d.waitingAt.push([r.name, w.count]);
    }
  }
  return out;
}

/** `40 in flight, 12 waiting at rt-a, 3 at rt-b`. */
export function demandText(d: Demand): string {
  const parts: string[] = [];
  if (d.inflight > 0) parts.push(`${d.inflight} in flight`);
  d.waitingAt.forEach(([router, n], i) => parts.push(i === 0 ? `${n} waiting at ${router}` : `${n} at ${router}`));
  return parts.join(', ');
}

/** What a model's replicas would serve: running, not lost, not draining. */
function routable(r: FleetReplica): boolean {
  return r.state === 'running' && !r.lost && !r.draining;
}

/** Replicas that count toward the model's number now: not lost, not draining. */
function present(r: FleetReplica): boolean {
  return !r.lost && !r.draining && r.state !== 'failed';
}

export interface ScaleInput {
  model: ModelConfig & { scale: ScaleConfig };
  replicas: readonly FleetReplica[];
  demand: Demand;
  record: ScalingRecord | undefined;
  /** cluster.yaml idle.after: scaleDownAfter's default. */
  idleAfterMs: number;
  nowMs: number;
}

/** The count one ranged model gets this tick, and why when it changes; null reason: unchanged. */
export function decideCount(input: ScaleInput): { from: number; count: number; reason: string | null; up: boolean } {
  const { min, max, targetInflight } = input.model.scale;
  const clamp = (n: number) => Math.max(min, Math.min(max, n));
  // Without a record (a model just made ranged) the count is what runs: the range does not stop or start anything by itself.
  const recorded = input.record?.count ?? input.replicas.filter(present).length;
  const count = clamp(recorded);
  const clamped = count !== recorded ? `range ${min}–${max}` : null;
  const d = input.demand;
  const demand = d.inflight + d.waiting;
  const serving = input.replicas.filter(routable);

  if (count === 0 && d.waiting > 0 && max >= 1) return { from: recorded, count: 1, reason: demandText(d), up: true };
  if (serving.length > 0 && demand / serving.length > targetInflight && count < max) {
    const to = Math.min(max, Math.max(1, count * 2), Math.ceil(demand / targetInflight));
    if (to > count) return { from: recorded, count: to, reason: `${demandText(d)}; over ${targetInflight} per replica`, up: true };
  }

  const afterMs = input.model.scale.scaleDownAfterMs ?? input.idleAfterMs;
  const lastUp = input.record?.lastUpAt === undefined ? NaN : Date.parse(input.record.lastUpAt);
  const settled = Number.isNaN(lastUp) || input.nowMs - lastUp >= afterMs;
  if (count > min && d.waiting === 0 && settled) {
    const idle = serving
      .filter((r) => r.idleSeconds !== null && r.idleSeconds * 1000 >= afterMs)
      .sort((a, b) => (b.idleSeconds ?? 0) - (a.idleSeconds ?? 0) || (a.id < b.id ? -1 : 1))[0];
    if (idle) return { from: recorded, count: count - 1, reason: `${idle.id} idle ${duration(idle.idleSeconds ?? 0)}`, up: false };
    // A count no replica fills (none could be placed) and nothing asks for: it goes too, or it would wait for GPUs forever.
    if (demand === 0 && input.replicas.filter(present).length < count) return { from: recorded, count: count - 1, reason: 'no demand, not placed', up: false };
  }
  return { from: recorded, count, reason: clamped, up: false };
}

export function hasScale(m: ModelConfig): m is ModelConfig & { scale: ScaleConfig } {
  return m.scale !== undefined;
}

/** The tick's decision for every ranged model (docs/config.md#on-demand-models). */
export function decideScale(fleet: Fleet, state: State): ScaleOutcome {
  const config = fleet.config;
  if (!config.models.some(hasScale)) return { config, scaling: undefined, decisions: [] };
  const demand = demandOf(fleet);
  const nowMs = Date.parse(fleet.now);
  const byModel = new Map<string, FleetReplica[]>();
  for (const r of fleet.replicas) byModel.set(r.model, [...(byModel.get(r.model) ?? []), r]);
  const scaling: Record<string, ScalingRecord> = {};
  const decisions: ScaleOutcome['decisions'] = [];
  const models = config.models.map((m): ModelConfig => {
    if (!hasScale(m)) return m;
    const record = state.scaling?.[m.name];
    const d = demand.get(m.name) ?? { inflight: 0, waiting: 0, waitingAt: [] };
    const decided = decideCount({ model: m, replicas: byModel.get(m.name) ?? [], demand: d, record, idleAfterMs: config.cluster.idleAfterMs, nowMs });
    if (decided.reason !== null && decided.count !== decided.from) {
      const last: ScalingDecision = { at: fleet.now, from: decided.from, to: decided.count, reason: decided.reason };
      decisions.push({ model: m.name, ...last });
      scaling[m.name] = { count: decided.count, ...(decided.up ? { lastUpAt: fleet.now } : record?.lastUpAt ? { lastUpAt: record.lastUpAt } : {}), last };
    } else {
      scaling[m.name] = record ? { ...record, count: decided.count } : { count: decided.count };
    }
    return { ...m, replicas: decided.count };
  });
  return { config: { ...config, models }, scaling, decisions };
}

/** `scale qwen-7b 0→1 (12 waiting at rt-a)`: one decision as the commit message names it. */
export function decisionText(d: ScaleOutcome['decisions'][number]): string {
  return `scale ${d.model} ${d.from}→${d.to} (${d.reason})`;
}
