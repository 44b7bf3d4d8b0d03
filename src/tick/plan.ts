// The plan phase of a tick (src/tick/README.md): pure. From what was observed
// and what state.json remembers, to the fleet model and the plan. `llmgw plan`,
// `llmgw apply` and the reconcile tick all plan through here, so the failed
// starts a report shows steer the preview's placement exactly as the tick's.

import { buildFleet } from '../fleet/build-fleet.js';
import { planWithEvictions, withFewer } from '../plan/evict.js';
import { decideYield, yieldReason } from '../plan/yield.js';
import { decideScale, hasScale, type ScaleOutcome } from '../plan/scale.js';
import type { Config } from '../types/config.js';
import type { Fleet } from '../types/fleet.js';
import type { Plan } from '../types/plan.js';
import type { Snapshot } from '../types/snapshot.js';
import type { State } from '../types/state.js';
import { withEndedJobs, withWaitingJobs } from '../slurm/job-waiting.js';
import { withPlanJobs } from '../slurm/submit.js';
import { recordObservedFailures, recordQuarantines } from './state.js';

export interface TickInput {
  config: Config;
  snapshot: Snapshot;
  /** state.json as committed. */
  state: State;
  /** ISO time the fleet is judged at: the tick's observation time, or `--now`. */
  now: string;
}

export interface Planned extends TickInput {
  /** The config planned with: models.yaml's, each replicas range replaced by the count decided this tick (src/plan/scale.ts). */
  config: Config;
  /** The committed state with the failed starts this snapshot shows recorded, and this tick's scaling record. */
  state: State;
  /** The scaling decisions of this tick (docs/config.md#on-demand-models), in models.yaml order. */
  scaled: ScaleOutcome['decisions'];
  fleet: Fleet;
  plan: Plan;
}

/** state.json with this tick's scaling record; unchanged when no model is, or was, ranged. */
function withScaling(state: State, scaling: ScaleOutcome['scaling']): State {
  if (scaling !== undefined) return { ...state, scaling };
  if (state.scaling === undefined) return state;
  const { scaling: _gone, ...rest } = state;
  return rest;
}

export function planTick(input: TickInput): Planned {
  const recorded = recordQuarantines(recordObservedFailures(input.state, input.snapshot, new Date(input.now)), input);
  // Jobs mode: a job submitted but not yet recorded by its agent is a starting replica, not a missing one; one Slurm ended is failed.
  const seen = withEndedJobs(withWaitingJobs(input.snapshot, input.config, recorded.placements), input.config);
  const observed = buildFleet(input.config, seen, recorded, input.now);
  // The one place a range becomes a count: every reader after this sees the decided `replicas`.
  const scale = decideScale(observed, recorded);
  const state = withScaling(recorded, scale.scaling);
  const scaled = scale.config === input.config ? observed : { ...observed, config: scale.config };
  // Yield (docs/slurm.md) before making room: GPUs given back to Slurm are not llmgw's to place on.
  const yields = decideYield(scaled);
  const given = new Map(yields.map((y) => [y.replica, yieldReason(y.jobs)]));
  const yielded = withFewer(
    scaled,
    scaled.replicas.filter((r) => given.has(r.id)),
  );
  const { fleet, plan: placed, evictions } = planWithEvictions(yielded, state, given);
  // Jobs mode: the Slurm jobs the plan submits and cancels, listed by name; the apply carries out this very list.
  const plan = withPlanJobs(placed, fleet.config, input.snapshot.slurm, (n) => fleet.nodeByName.get(n)?.report ?? null);
  const causes = [
    ...evictions.map((e) => ({ model: e.model, reason: `evicted for ${e.for}` })),
    ...yields.map((y) => ({ model: y.model, reason: yieldReason(y.jobs) })),
  ];
  return { ...input, config: fleet.config, state: withEvictions(state, causes, fleet), scaled: scale.decisions, fleet, plan };
}

/** A victim's model (evicted or yielded) keeps the count it was left with, or it would be placed again next tick. */
function withEvictions(state: State, evictions: readonly { model: string; reason: string }[], fleet: Planned['fleet']): State {
  if (evictions.length === 0 || state.scaling === undefined) return state;
  const scaling = { ...state.scaling };
  for (const m of fleet.config.models) {
    const mine = evictions.filter((e) => e.model === m.name);
    const rec = scaling[m.name];
    if (mine.length === 0 || rec === undefined) continue;
    const reason = [...new Set(mine.map((e) => e.reason))].join('; ');
    scaling[m.name] = { ...rec, count: m.replicas, last: { at: fleet.now, from: rec.count, to: m.replicas, reason } };
  }
  return { ...state, scaling };
}

/**
 * The config as the last tick decided it, for readers of the committed files that
 * do not plan (the console): each ranged model at state.json's count, within its range.
 */
export function committedCounts(config: Config, state: State): Config {
  if (!config.models.some(hasScale)) return config;
  const models = config.models.map((m) => {
    if (!hasScale(m)) return m;
    const count = state.scaling?.[m.name]?.count ?? m.replicas;
    return { ...m, replicas: Math.max(m.scale.min, Math.min(m.scale.max, count)) };
  });
  return { ...config, models };
}
