// Steps 1, 2 (removed and failed), 4 and 5 of docs/placement.md Placement: decide for
// each replica the fleet knows whether it is kept, stopped to free capacity,
// replaced with surge, or gone with a lost node.

import type { ModelConfig } from '../types/config.js';
import type { Fleet, FleetReplica } from '../types/fleet.js';
import type { StopAction, StopPhase } from '../types/plan.js';
import { drainVerdict, needsDrain } from './drain.js';
import { replicaSpec } from './spec.js';
import { compareNames } from './replica-ids.js';
import { isStuckReason, replaceStuckReason } from '../fleet/liveness.js';
import { servedByRouters } from '../fleet/routes.js';

/** The reason of a replica whose spec differs from the one it would be started with now. */
export const SPEC_CHANGED = 'spec changed';
/** The reason of a replica with a rank on a lost node. */
export const NODE_LOST = 'node lost';

/** A replica that is not kept for a reason a surge replacement answers. */
export interface NotKept {
  replica: FleetReplica;
  reason: string;
}

export interface ModelReplicas {
  model: ModelConfig;
  /** The spec a replica started now would carry; null when its engine is unknown. */
  spec: string | null;
  /** Counted toward `replicas`: starting or running, including those on unreachable nodes. */
  kept: FleetReplica[];
  /** Replaced with surge (spec changed, node cordoned, GPU unhealthy, class changed). */
  notKept: NotKept[];
}

export interface Classified {
  byModel: Map<string, ModelReplicas>;
  /** Stops that do not wait (removed, failed, ranks of lost replicas, drains that are over), by replica id. */
  freeStops: StopAction[];
  /** Replicas draining that stay this tick: out of the tables, GPUs still taken. */
  draining: FleetReplica[];
}

/**
 * A stop of `replica`. Its phase is `drain` when routers may be sending it
 * requests (src/plan/drain.ts), unless `phase` says otherwise (the end of a drain).
 */
export function stopAction(replica: FleetReplica, reason: string, waitFor: string[], fleet: Fleet, phase?: StopPhase): StopAction {
  // Only ranks on reachable nodes can be stopped: a lost node's ranks are gone
  // with it, and an unreachable node cannot be told anything.
  const placement = replica.ranks.filter((r) => fleet.nodeByName.get(r.node)?.condition === 'reachable').map((r) => ({ node: r.node, gpus: [...r.gpus] }));
  // A stalled or ejected replica serves nothing: a drain would only wait out drainTimeout.
  const p = phase ?? (!isStuckReason(reason) && needsDrain(replica, fleet) ? 'drain' : 'stop');
  return { op: 'stop', replica: replica.id, model: replica.model, placement, reason, waitFor, phase: p };
}

/** Whether a stop frees its GPUs this tick (a drain holds them until the stop that ends it). */
export function freesNow(stop: StopAction): boolean {
  return (stop.phase ?? 'stop') === 'stop';
}

/** Why a replica of a desired model cannot stay where it is, or null to keep it. */
export function notKeptReason(replica: FleetReplica, model: ModelConfig, spec: string | null, fleet: Fleet): string | null {
  if (replica.spec !== null) {
    if (spec !== null && replica.spec !== spec) return SPEC_CHANGED;
  } else if (replica.ranks.length !== model.nodes || replica.ranks.some((r) => r.gpus.length !== model.gpus)) {
    // No spec (older agent, or started by hand): judge only what can be seen,
    // so such a replica is never rolled blindly.
    return SPEC_CHANGED;
  }
  let cordoned = false;
  let unhealthy = false;
  let wrongClass = false;
  for (const rank of replica.ranks) {
    const node = fleet.nodeByName.get(rank.node);
    if (!node) continue;
    if (node.cordoned) cordoned = true;
    for (const index of rank.gpus) {
      // GPUs are sorted by index and usually numbered from 0: try the direct slot first.
      const gpu = node.gpus[index]?.index === index ? node.gpus[index] : node.gpus.find((g) => g.index === index);
      if (!gpu) continue;
      if (!gpu.healthy) unhealthy = true;
      if (model.gpuClass !== undefined && gpu.class !== model.gpuClass) wrongClass = true;
    }
  }
  if (wrongClass) return 'gpuClass changed';
  if (cordoned) return 'node cordoned';
  if (unhealthy) return 'GPU unhealthy';
  // Replaced with surge like the others: a new one starts first when there is room.
  return replaceStuckReason(replica, model, Date.parse(fleet.now));
}

export function classify(fleet: Fleet): Classified {
  const byModel = new Map<string, ModelReplicas>();
  for (const model of fleet.config.models) {
    const engine = fleet.config.cluster.engines[model.engine];
    byModel.set(model.name, { model, spec: engine ? replicaSpec(model, engine) : null, kept: [], notKept: [] });
  }
  const freeStops: StopAction[] = [];
  const draining: FleetReplica[] = [];
  for (const replica of fleet.replicas) {
    const desired = byModel.get(replica.model);
    if (replica.draining) {
      // Its stop has begun: it counts for nothing, and is stopped once drained
      // (or at once when it failed meanwhile: nothing is left to wait for).
      const verdict = drainVerdict(replica, replica.draining, fleet);
      if (replica.state === 'running' && !verdict.done) {
        draining.push(replica);
        continue;
      }
      const why = replica.state === 'running' ? verdict.text : replica.state;
      const stop = stopAction(replica, `${replica.draining.reason}; ${why}`, [], fleet, 'stop');
      if (stop.placement.length > 0) freeStops.push(stop);
      else draining.push(replica);
      continue;
    }
    if (replica.lost) {
      // Counts as gone and is placed again; ranks left on reachable nodes cannot serve alone.
      const stop = stopAction(replica, desired ? NODE_LOST : 'not in models.yaml', [], fleet);
      if (stop.placement.length === 0) continue;
      // Unless the routers still serve it (its node lost SSH, not its engines):
      // lost means "replace", not "cut", so those ranks stop once the replacement runs.
      if (desired && servedByRouters(replica.id, replica.model, fleet.routers ?? [])) desired.notKept.push({ replica, reason: NODE_LOST });
      else freeStops.push(stop);
      continue;
    }
    if (!desired || replica.state === 'failed') {
      // Stopped without waiting; a rank on an unreachable node cannot be told, but
      // the ranks that can are stopped now so their GPUs are free for this plan.
      const stop = stopAction(replica, desired ? 'failed' : 'not in models.yaml', [], fleet);
      if (stop.placement.length > 0) freeStops.push(stop);
      continue;
    }
    if (replica.unreachable) {
      // Its node's last report is assumed still true: nothing is moved until it is lost.
      desired.kept.push(replica);
      continue;
    }
    const reason = notKeptReason(replica, desired.model, desired.spec, fleet);
    if (reason === null) desired.kept.push(replica);
    else desired.notKept.push({ replica, reason });
  }
  freeStops.sort((a, b) => compareNames(a.replica, b.replica));
  return { byModel, freeStops, draining };
}
