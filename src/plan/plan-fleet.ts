// The planner: docs/placement.md Placement as a pure, deterministic function of the
// fleet model and state. Each step lives in its own module; this one wires
// them in the contract's order and assembles the plan.

import { fleetFit } from '../fleet/fit-report.js';
import { isStuckReason } from '../fleet/liveness.js';
import type { Fleet } from '../types/fleet.js';
import type { Action, Plan, RolloutPlan, StartAction, StopAction, Unplaceable } from '../types/plan.js';
import type { State } from '../types/state.js';
import { buildCapacity } from './capacity.js';
import { NODE_LOST, classify, freesNow, stopAction } from './classify.js';
import { waitingForDrains, type Asked } from './drain-capacity.js';
import { isDuplicateStop, withDuplicateStops } from './duplicate-stops.js';
import type { PlaceContext } from './place-context.js';
import { placeModel } from './place-model.js';
import { placementOrder } from './placement-order.js';
import { recentFailedPorts, recentFailures } from './recent-failures.js';
import { byReplicaNumber, compareNames, idAllocator } from './replica-ids.js';
import { planRollout } from './rollout.js';
import { blockedReason } from './safety.js';
import { recentlyDown, stopSurplus } from './surplus.js';
import { yieldedJobs } from './yield.js';

/** Replicas the plan stops to make room for another model (src/plan/evict.ts). */
export interface Evictions {
  /** replica id -> the stop's reason, `evicted for <model>`. */
  stops: ReadonlyMap<string, string>;
  /** A trial: the evicted replicas' GPUs count as free this tick, as they will be once drained (a yield's stay the job's). */
  assumeFreed?: boolean;
}

export function planFleet(fleet: Fleet, state: State, evictions?: Evictions): Plan {
  // Steps 1, 2, 4, 5: what stays, what is freed now, what is replaced with surge.
  const { byModel, freeStops, draining } = classify(fleet);
  const assumed = new Set<string>();
  for (const [id, reason] of evictions?.stops ?? []) {
    const r = fleet.replicaById.get(id);
    const g = r ? byModel.get(r.model) : undefined;
    if (!r || !g || !g.kept.includes(r)) continue;
    g.kept = g.kept.filter((k) => k !== r);
    freeStops.push(stopAction(r, reason, [], fleet));
    // A yield's GPUs are the pending job's in a trial too (src/plan/yield.ts): only evictions are assumed freed.
    if (evictions?.assumeFreed === true && yieldedJobs(reason) === null) assumed.add(id);
  }
  // classify makes a group for every model in the config.
  const groupOf = (name: string): NonNullable<ReturnType<typeof byModel.get>> => {
    const g = byModel.get(name);
    if (!g) throw new TypeError(`no replica group for model ${name}`);
    return g;
  };
  // A model rolling out (models.yaml `rollout`) decides its own starts and stops.
  const rollouts = new Map(
    fleet.config.models.flatMap((m) => {
      const d = planRollout(groupOf(m.name), fleet, state);
      return d ? [[m.name, d] as const] : [];
    }),
  );
  const recent = recentlyDown(fleet, state);
  for (const model of fleet.config.models) {
    if (!rollouts.has(model.name)) freeStops.push(...stopSurplus(groupOf(model.name), fleet, recent));
  }
  freeStops.sort((a, b) => compareNames(a.replica, b.replica));

  // A drain keeps its GPUs until the stop that ends it; only stops of this tick free theirs.
  // GPUs yielded to Slurm (src/plan/yield.ts) are the pending job's, not room for this plan.
  const freed = new Set([...freeStops.filter((s) => freesNow(s) && yieldedJobs(s.reason) === null).map((s) => s.replica), ...assumed]);
  const fit = fleetFit(fleet);
  const ctx: PlaceContext = {
    fleet,
    capacity: buildCapacity(fleet, freed, recentFailedPorts(state, fleet.now)),
    recentFailures: recentFailures(state, fleet.now),
    fit,
  };
  const newId = idAllocator([...fleet.replicas.map((r) => r.id), ...(fleet.foreignReplicaIds ?? []), ...(fleet.unrecorded ?? []).map((u) => u.replica)]);
  const starts: StartAction[] = [];
  const replaceStops: StopAction[] = [];
  const unplaceable: Unplaceable[] = [];
  const rolloutPlans: RolloutPlan[] = [];
  const asked: Asked[] = [];

  // Step 3 (and the surge half of step 4): one model at a time, in placement order.
  for (const model of placementOrder(fleet.config.models)) {
    const group = groupOf(model.name);
    const order = byReplicaNumber(model.name);
    const rollout = rollouts.get(model.name);
    if (rollout) {
      rolloutPlans.push(rollout.plan);
      for (const s of rollout.stops) replaceStops.push(stopAction(s.replica, s.reason, [], fleet));
      if (rollout.place === 0) continue;
      asked.push({ model, count: rollout.place });
      const result = placeModel(model, rollout.place, ctx);
      result.placed.forEach((p) => {
        starts.push({
          op: 'start',
          replica: newId(model.name),
          model: model.name,
          port: p.port,
          placement: p.placement,
          weights: p.weights,
          reason: rollout.startReason,
        });
      });
      if (result.reason !== null) unplaceable.push({ model: model.name, missing: rollout.place - result.placed.length, reason: result.reason });
      continue;
    }
    const keptStarting = group.kept.filter((r) => r.state === 'starting').map((r) => r.id);
    const notKept = [...group.notKept].sort((a, b) => order(a.replica.id, b.replica.id));
    const missing = Math.max(0, model.replicas - group.kept.length);
    if (missing === 0) {
      // Enough kept replicas: every not-kept one goes once the kept ones run.
      const waitFor = [...keptStarting].sort(order);
      for (const nk of notKept) replaceStops.push(stopAction(nk.replica, nk.reason, waitFor, fleet));
      continue;
    }
    asked.push({ model, count: missing });
    const result = placeModel(model, missing, ctx);
    const ids = result.placed.map(() => newId(model.name));
    const replicasWord = model.replicas === 1 ? 'replica' : 'replicas';
    // A replacement's start reads like any missing replica's; the stop it
    // releases names the reason and waits for it.
    result.placed.forEach((p, i) => {
      starts.push({
        op: 'start',
        replica: ids[i] ?? newId(model.name), // ids has one per placement
        model: model.name,
        port: p.port,
        placement: p.placement,
        weights: p.weights,
        reason: `${missing} of ${model.replicas} ${replicasWord} missing`,
      });
    });
    // One not-kept replica stops per new one placed; the rest keep serving
    // until a later tick can replace them.
    const waitFor = [...ids, ...keptStarting].sort(order);
    for (const nk of notKept.slice(0, result.placed.length)) {
      replaceStops.push(stopAction(nk.replica, nk.reason, waitFor, fleet));
    }
    // A stalled or ejected replica with no room for its surge serves nothing by
    // staying: it stops now, and its GPUs are room for the replacement next tick.
    // So does a lost one's surviving half: its GPUs may be the room.
    for (const nk of notKept.slice(result.placed.length)) {
      if (isStuckReason(nk.reason) || nk.reason === NODE_LOST) replaceStops.push(stopAction(nk.replica, nk.reason, [], fleet));
    }
    if (result.reason !== null) {
      unplaceable.push({ model: model.name, missing: missing - result.placed.length, reason: result.reason });
    }
  }
  replaceStops.sort((a, b) => compareNames(a.replica, b.replica));

  // A duplicate's stop frees GPUs only after it ran: nothing this plan places
  // counts on them, and it stops nothing that serves (the replica stays).
  const planned: Action[] = [...freeStops, ...starts, ...replaceStops];
  const actions = withDuplicateStops(fleet, planned);
  // What waits only for GPUs a drain still holds is not unplaceable: it lands once the drain ends.
  const held = [...draining.map((r) => r.id), ...planned.filter((a): a is StopAction => a.op === 'stop' && !freesNow(a)).map((a) => a.replica)];
  const reallyUnplaceable =
    unplaceable.length > 0 && held.length > 0 ? waitingForDrains(fleet, state, asked, unplaceable, new Set([...freed, ...held]), fit) : unplaceable;
  const blocked = blockedReason(
    fleet,
    actions.filter((a) => !isDuplicateStop(a)),
  );
  const plan: Plan = { version: 1, changes: actions.length > 0, blocked, actions, unplaceable: reallyUnplaceable };
  if (rolloutPlans.length > 0) plan.rollouts = rolloutPlans.sort((a, b) => compareNames(a.model, b.model));
  return plan;
}
