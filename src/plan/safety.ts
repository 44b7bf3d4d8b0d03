// docs/safety.md: a plan is shown but never applied by reconcile when too few
// nodes answered (the fleet may only look empty), or when it would stop too
// large a share of what serves. Stops that wait for a replacement do not count:
// they only happen once the replacement runs.

import type { Fleet } from '../types/fleet.js';
import type { Action } from '../types/plan.js';
import { idleEnough } from './idle-enough.js';

function percent(x: number): string {
  return `${Math.round(x * 100)}%`;
}

function configPercent(x: number): string {
  return `${Math.round(x * 1000) / 10}%`;
}

/** A stop of a replica idle enough (src/plan/evict.ts idleEnough) takes nothing from service: outside the fraction. */
function idleStop(fleet: Fleet, id: string): boolean {
  const r = fleet.replicaById.get(id);
  return r !== undefined && idleEnough(fleet, r);
}

export function blockedReason(fleet: Fleet, actions: readonly Action[]): string | null {
  const { minReachableFraction, maxStopFraction } = fleet.config.cluster.safety;
  const total = fleet.nodes.length;
  const answered = fleet.nodes.filter((n) => n.condition === 'reachable').length;
  if (total > 0 && answered / total < minReachableFraction) {
    return (
      `only ${answered} of ${total} nodes answered (${percent(answered / total)}); ` +
      `safety.minReachableFraction is ${configPercent(minReachableFraction)}: observing only`
    );
  }
  // A lost replica is already gone and a failed one serves nothing: neither is
  // counted, on either side of the fraction. Nor is a draining one: its stop
  // was counted when its drain began, and ending it takes nothing from service.
  const serving = (id: string) => {
    const r = fleet.replicaById.get(id);
    return r !== undefined && !r.lost && !r.draining && (r.state === 'running' || r.state === 'starting');
  };
  const running = fleet.replicas.filter((r) => serving(r.id)).length;
  if (running === 0) return null;
  const stops = actions.filter((a) => a.op === 'stop' && a.waitFor.length === 0 && serving(a.replica) && !idleStop(fleet, a.replica)).length;
  if (stops / running > maxStopFraction) {
    return (
      `would stop ${stops} of ${running} running and starting replicas (${percent(stops / running)}) ` +
      `without a replacement; safety.maxStopFraction is ${configPercent(maxStopFraction)}`
    );
  }
  return null;
}
