// Which actions of a plan a tick carries out, decided before anything runs
// (docs/safety.md): starts; stops that free capacity; stops whose replacement
// is already running; the other stops wait for a later tick. The executor runs
// this schedule, and `llmgw plan` projects it as its "after", so the preview
// and the tick cannot disagree about which stops wait.

import type { Fleet } from '../types/fleet.js';
import type { Plan, StartAction, StopAction } from '../types/plan.js';
import type { Effects } from '../plan/project-fleet.js';
import type { ApplyOutcome } from './outcome.js';

export interface ApplySchedule {
  starts: StartAction[];
  /** Stops without waitFor: they free capacity and run first. */
  freeing: StopAction[];
  /** Stops whose waitFor replicas all run now: they go after the router tables. */
  ready: StopAction[];
  /** Stops whose replacement is not running yet: a later tick does them. */
  waiting: StopAction[];
}

/** A stop whose part this tick is taking the replica out of the tables (src/plan/drain.ts). */
export function isDrain(stop: StopAction): boolean {
  return stop.phase === 'drain';
}

export function scheduleApply(plan: Plan, fleet: Fleet): ApplySchedule {
  const starts = plan.actions.filter((a): a is StartAction => a.op === 'start');
  const stops = plan.actions.filter((a): a is StopAction => a.op === 'stop');
  const isRunning = (id: string) => fleet.replicaById.get(id)?.state === 'running';
  return {
    starts,
    freeing: stops.filter((s) => s.waitFor.length === 0),
    ready: stops.filter((s) => s.waitFor.length > 0 && s.waitFor.every(isRunning)),
    waiting: stops.filter((s) => s.waitFor.length > 0 && !s.waitFor.every(isRunning)),
  };
}

/**
 * What a tick that applies the plan without an error leaves done, for the
 * plan's "after". A stop with a rank on an unreachable node is not among
 * them: the executor cannot reach it (it fails, and a later tick stops it once
 * the node answers), so the replica is still there after this tick.
 */
export function expectedEffects(plan: Plan, fleet: Fleet): Effects {
  const s = scheduleApply(plan, fleet);
  const reachable = (stop: StopAction) => stop.placement.every((p) => fleet.nodeByName.get(p.node)?.condition !== 'unreachable');
  const due = [...s.freeing, ...s.ready];
  // A drain calls no node: it begins wherever its replica is.
  return { started: s.starts, stopped: due.filter((x) => !isDrain(x)).filter(reachable), drained: due.filter(isDrain) };
}

/** What an apply actually did: the actions whose every node answered ok. */
export function effectsOf(plan: Plan, outcome: ApplyOutcome): Effects {
  const done = new Set(outcome.results.filter((r) => r.status === 'ok').map((r) => `${r.op}:${r.replica}`));
  const took = plan.actions.filter((a) => done.has(`${a.op}:${a.replica}`));
  const stops = took.filter((a): a is StopAction => a.op === 'stop');
  return {
    started: took.filter((a): a is StartAction => a.op === 'start'),
    stopped: stops.filter((a) => !isDrain(a)),
    drained: stops.filter(isDrain),
  };
}
