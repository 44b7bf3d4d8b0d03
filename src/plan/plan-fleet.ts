// The planner: docs/placement.md Placement as a pure, deterministic function of the
// fleet model and state. Each step lives in its own module; this one wires
// them in the contract's order and assembles the plan.

import type { Fleet } from '../types/fleet.js';
import type { Action, Plan, StartAction, StopAction, Unplaceable } from '../types/plan.js';
import type { State } from '../types/state.js';
import { buildCapacity } from './capacity.js';
import { classify, stopAction } from './classify.js';
import { isDuplicateStop, withDuplicateStops } from './duplicate-stops.js';
import type { PlaceContext } from './place-context.js';
import { placeMultiNode } from './place-multi-node.js';
import { placeOneNode } from './place-one-node.js';
import { placementOrder } from './placement-order.js';
import { recentFailures } from './recent-failures.js';
import { byReplicaNumber, compareNames, idAllocator } from './replica-ids.js';
import { blockedReason } from './safety.js';
import { stopSurplus } from './surplus.js';

export function planFleet(fleet: Fleet, state: State): Plan {
  // Steps 1, 2, 4, 5: what stays, what is freed now, what is replaced with surge.
  const { byModel, freeStops } = classify(fleet);
  for (const model of fleet.config.models) freeStops.push(...stopSurplus(byModel.get(model.name)!, fleet));
  freeStops.sort((a, b) => compareNames(a.replica, b.replica));

  const ctx: PlaceContext = {
    fleet,
    capacity: buildCapacity(fleet, new Set(freeStops.map((s) => s.replica))),
    recentFailures: recentFailures(state, fleet.now),
  };
  const newId = idAllocator([...fleet.replicas.map((r) => r.id), ...(fleet.foreignReplicaIds ?? [])]);
  const starts: StartAction[] = [];
  const replaceStops: StopAction[] = [];
  const unplaceable: Unplaceable[] = [];

  // Step 3 (and the surge half of step 4): one model at a time, in placement order.
  for (const model of placementOrder(fleet.config.models)) {
    const group = byModel.get(model.name)!;
    const order = byReplicaNumber(model.name);
    const keptStarting = group.kept.filter((r) => r.state === 'starting').map((r) => r.id);
    const notKept = [...group.notKept].sort((a, b) => order(a.replica.id, b.replica.id));
    const missing = Math.max(0, model.replicas - group.kept.length);
    if (missing === 0) {
      // Enough kept replicas: every not-kept one goes once the kept ones run.
      const waitFor = [...keptStarting].sort(order);
      for (const nk of notKept) replaceStops.push(stopAction(nk.replica, nk.reason, waitFor, fleet));
      continue;
    }
    const place = model.nodes > 1 ? placeMultiNode : placeOneNode;
    const result = place(model, missing, ctx);
    const ids = result.placed.map(() => newId(model.name));
    const replicasWord = model.replicas === 1 ? 'replica' : 'replicas';
    // A replacement's start reads like any missing replica's; the stop it
    // releases names the reason and waits for it.
    result.placed.forEach((p, i) => {
      starts.push({
        op: 'start',
        replica: ids[i]!,
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
    if (result.reason !== null) {
      unplaceable.push({ model: model.name, missing: missing - result.placed.length, reason: result.reason });
    }
  }
  replaceStops.sort((a, b) => compareNames(a.replica, b.replica));

  // A duplicate's stop frees GPUs only after it ran: nothing this plan places
  // counts on them, and it stops nothing that serves (the replica stays).
  const planned: Action[] = [...freeStops, ...starts, ...replaceStops];
  const actions = withDuplicateStops(fleet, planned);
  return { version: 1, changes: actions.length > 0, blocked: blockedReason(fleet, actions.filter((a) => !isDuplicateStop(a))), actions, unplaceable };
}
