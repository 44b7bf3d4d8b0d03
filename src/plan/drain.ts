// Drain before stop (docs/safety.md#stopping-a-replica): a stop of a replica the routers
// may be sending requests to begins by taking it out of every router's table;
// a later tick stops it once every router reports nothing in flight for it, or
// once its drainTimeout has passed. Pure: the verdict is a function of the
// fleet as observed (the routers' `inflight`), the drain's mark from
// state.json, and now — so a plan, the tick and `llmgw status` on the
// committed files all judge a drain alike.

import { duration, plural } from '../text/format.js';
import { MODEL_LIFECYCLE_DEFAULTS } from '../types/config.js';
import type { DrainMark, Fleet, FleetReplica } from '../types/fleet.js';

/** How a replica of `model` is stopped: the model's values, else cluster.yaml `defaults:`, else the built-in ones. */
export function stopTimings(fleet: Fleet, model: string): { drainTimeoutMs: number; stopGraceMs: number } {
  const m = fleet.config.models.find((x) => x.name === model);
  if (m) return { drainTimeoutMs: m.drainTimeoutMs, stopGraceMs: m.stopGraceMs };
  return fleet.config.cluster.stopDefaults ?? MODEL_LIFECYCLE_DEFAULTS;
}

/**
 * Whether stopping this replica begins with a drain. Only a `running` replica
 * can have been in a router's table (the tables list running replicas only):
 * a starting one was never routed, and a failed one has no answer left worth
 * waiting for. With no router, or a drainTimeout of 0, there is nothing to
 * wait for: the stop goes ahead at once (after the table push, as before).
 */
export function needsDrain(replica: FleetReplica, fleet: Fleet): boolean {
  if (replica.state !== 'running' || fleet.config.cluster.routers.length === 0) return false;
  return stopTimings(fleet, replica.model).drainTimeoutMs > 0;
}

export interface DrainVerdict {
  /** Stop it now. */
  done: boolean;
  /** Requests in flight over the routers that answered with a count; null when no router's evidence counts yet. */
  inflight: number | null;
  /** What the stop's reason adds: `drained`, `drainTimeout 10m passed with 3 requests in flight`. */
  text: string;
}

function ms(iso: string | null): number {
  return iso === null ? NaN : Date.parse(iso);
}

/**
 * Every router's evidence that nothing is in flight for the replica: null
 * while some router's word does not count — it did not answer, it sends no
 * `inflight` (older than 0.2), or what it said was gathered before every
 * router had taken a table without the replica (it could still have been
 * sending it requests). Otherwise the sum over routers (absent = 0: a router
 * reports every replica of its table and each one that left it while requests
 * still run).
 */
function inflightAfterTables(replica: FleetReplica, mark: DrainMark, fleet: Fleet): { count: number | null; silent: string[] } {
  const observed = new Map((fleet.routers ?? []).map((r) => [r.name, r]));
  const out = ms(mark.outOfTablesAt);
  const fresh = !Number.isNaN(out) && ms(fleet.observedAt) > out;
  let count = 0;
  let known = true;
  const silent: string[] = [];
  for (const rt of fleet.config.cluster.routers) {
    const obs = observed.get(rt.name);
    if (!obs || !obs.reachable || obs.report.inflight === undefined) {
      silent.push(rt.name);
      known = false;
      continue;
    }
    const n = (Object.hasOwn(obs.report.inflight, replica.id) ? obs.report.inflight[replica.id] : undefined) ?? 0;
    count += n;
  }
  return { count: known && fresh ? count : null, silent };
}

export function drainVerdict(replica: FleetReplica, mark: DrainMark, fleet: Fleet): DrainVerdict {
  if (fleet.config.cluster.routers.length === 0) return { done: true, inflight: 0, text: 'drained (no router)' };
  const { count, silent } = inflightAfterTables(replica, mark, fleet);
  if (count === 0) return { done: true, inflight: 0, text: 'drained' };
  const { drainTimeoutMs } = stopTimings(fleet, replica.model);
  const since = ms(mark.since);
  // An unreadable start time cannot be waited out: stop rather than drain forever.
  const timedOut = Number.isNaN(since) || ms(fleet.now) - since >= drainTimeoutMs;
  if (!timedOut) return { done: false, inflight: count, text: 'draining' };
  const limit = `drainTimeout ${duration(Math.round(drainTimeoutMs / 1000))} passed`;
  if (count !== null) return { done: true, inflight: count, text: `${limit} with ${plural(count, 'request')} in flight` };
  if (silent.length > 0) return { done: true, inflight: null, text: `${limit} (router ${silent.join(', ')} did not answer)` };
  return { done: true, inflight: null, text: `${limit} (no router reported since it left the tables)` };
}
