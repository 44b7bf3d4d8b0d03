// The part of .llmgw/state.json that drains and rollouts keep
// (docs/safety.md#stopping-a-replica): pure. A drain is remembered from the tick that
// begins it (the replica left the tables) until a tick stops it, so a
// restarted reconciler continues it and never puts the replica back in a
// table while its stop is still intended. A rollout's record is what the plan
// that was applied says it should be next.

import type { ApplyOutcome } from '../apply/outcome.js';
import type { Effects } from '../plan/project-fleet.js';
import type { Config } from '../types/config.js';
import type { Fleet } from '../types/fleet.js';
import type { Plan } from '../types/plan.js';
import type { DrainEntry, LifecycleState, State } from '../types/state.js';

export interface LifecycleInput {
  config: Config;
  plan: Plan;
  /** The fleet as observed (planned). */
  fleet: Fleet;
  /** What took effect; null when the plan was not applied (blocked, held, uncommitted edits). */
  effects: Effects | null;
  /** The apply's outcome; absent for a preview, which assumes every router takes its table. */
  outcome?: ApplyOutcome;
  now: string;
}

/** Whether every configured router took this tick's table (each table of a tick leaves every draining replica out). */
function tablesTaken(input: LifecycleInput): boolean {
  if (input.effects === null) return false;
  const routers = input.config.cluster.routers;
  if (routers.length === 0 || input.outcome === undefined) return true;
  const took = new Set(input.outcome.routerTables.filter((t) => t.ok).map((t) => t.router));
  return routers.every((r) => took.has(r.name));
}

export function lifecycleAfter(prev: LifecycleState | undefined, input: LifecycleInput): LifecycleState | undefined {
  const { now, effects, fleet } = input;
  const taken = tablesTaken(input);
  // A duplicate's stop ends only a copy (docs/safety.md#one-replica-id-in-one-place): the replica of record keeps draining.
  const stopped = new Set((effects?.stopped ?? []).filter((s) => !s.duplicate).map((s) => s.replica));
  const draining: Record<string, DrainEntry> = {};
  for (const [id, e] of Object.entries(prev?.draining ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    // Stopped now, or gone from every node's report: its drain is over. (An
    // agent forgets a replica it stopped, so one cannot come back from there.)
    if (stopped.has(id) || !fleet.replicaById.has(id)) continue;
    draining[id] = e.outOfTablesAt === null && taken ? { ...e, outOfTablesAt: now } : e;
  }
  for (const d of effects?.drained ?? []) {
    if (!Object.hasOwn(draining, d.replica)) draining[d.replica] = { since: now, reason: d.reason, outOfTablesAt: taken ? now : null };
  }
  const rollouts = effects === null ? { ...(prev?.rollouts ?? {}) } : Object.fromEntries((input.plan.rollouts ?? []).map((r) => [r.model, r.next]));
  if (Object.keys(draining).length === 0 && Object.keys(rollouts).length === 0) return undefined;
  return { draining, rollouts };
}

/** `state` with its lifecycle part replaced (the key left out when there is nothing to remember). */
export function withLifecycle(state: State, lifecycle: LifecycleState | undefined): State {
  const { lifecycle: _old, ...rest } = state;
  return lifecycle === undefined ? rest : { ...rest, lifecycle };
}
