// The routing table and the bookkeeping that picks a replica. Idle tracking,
// in-flight counts and served counters live here on purpose: the moment a request
// acquires a replica is the moment it was last used, so that moment is written
// into one number per replica (the newest wins) and read as a map only when
// `router usage` asks. No per-request notification, no log to scan: the cost is
// a few counters, the same with 4 replicas or 400.

import type { Dispatcher } from 'undici';
import type { RouterEndpoints, RouterUsage, RoutingMode } from '../types/snapshot.js';
import { buildRing, pickOnRing, type Ring } from './ring.js';

/**
 * One replica id's bookkeeping. Kept across table swaps, so a replica that leaves
 * keeps being counted while its requests finish, and one that comes back keeps
 * its history.
 */
export interface ReplicaCell {
  /** Epoch ms of the newest acquisition; 0 = not served since the router started. */
  lastUsedMs: number;
  /** Requests acquired and not yet finished. */
  inFlight: number;
  /** Attempts finished since the router started (a retry is a second attempt, on its own replica). */
  requests: number;
  /** Of those, 5xx answers and failed connections. */
  errors: number;
}

/** A replica as the proxy sees it: where to send, and how busy it is. */
export interface Upstream {
  readonly replica: string;
  readonly url: string;
  /** scheme://host[:port] for the connection pool. */
  readonly origin: string;
  /** The endpoint URL's path without a trailing slash; '' for a bare origin. */
  readonly basePath: string;
  readonly cell: ReplicaCell;
  /** Kept-alive connections to it, made on first use (upstream.ts). */
  pool: Dispatcher | null;
}

export interface ModelRoute {
  readonly mode: RoutingMode;
  readonly upstreams: readonly Upstream[];
  /** The consistent-hash ring over `upstreams` (prefix mode). */
  readonly ring: Ring;
  /** Scratch for the ring walk: loads[i] = upstreams[i]'s in-flight count at pick time. */
  readonly loads: Int32Array;
  /** Where the round-robin among equally busy replicas starts next. */
  cursor: number;
}

export interface RouterState {
  readonly startedAtMs: number;
  readonly nowMs: () => number;
  /** Replaced whole on a swap, never edited: a request sees one table or the next. */
  models: ReadonlyMap<string, ModelRoute>;
  readonly cells: Map<string, ReplicaCell>;
  /** Called with the upstreams a swap dropped, once per swap (the pools close when their requests finish). */
  onDropped: (gone: Upstream[]) => void;
  /** The highest lease epoch a table came with (fence.ts); in memory only, like the table itself. */
  highestEpoch: number;
}

export function createRouterState(nowMs: () => number): RouterState {
  return { startedAtMs: nowMs(), nowMs, models: new Map(), cells: new Map(), onDropped: () => undefined, highestEpoch: 0 };
}

/**
 * The replica for a request: `prefix` with a key walks the ring (ring.ts);
 * `least-inflight`, or a request with nothing to key on, takes the least busy
 * replica, ties broken round-robin. `exclude` is the replica that just failed
 * (a retry goes elsewhere). null when none is left.
 */
export function pickUpstream(route: ModelRoute, key: number | null, exclude: Upstream | null): Upstream | null {
  const list = route.upstreams;
  if (key !== null && route.mode === 'prefix' && list.length > 1) {
    const loads = route.loads;
    for (let i = 0; i < list.length; i++) loads[i] = list[i]!.cell.inFlight;
    const i = pickOnRing(route.ring, key, loads, exclude ? list.indexOf(exclude) : -1);
    return i < 0 ? null : list[i]!;
  }
  return leastInFlight(route, exclude);
}

function leastInFlight(route: ModelRoute, exclude: Upstream | null): Upstream | null {
  const list = route.upstreams;
  const n = list.length;
  let best: Upstream | null = null;
  let bestIndex = 0;
  for (let i = 0; i < n; i++) {
    const index = (route.cursor + i) % n;
    const u = list[index]!;
    if (u === exclude) continue;
    if (best === null || u.cell.inFlight < best.cell.inFlight) {
      best = u;
      bestIndex = index;
    }
  }
  if (best !== null) route.cursor = (bestIndex + 1) % n;
  return best;
}

/** Take a replica for one attempt: counts it in flight and stamps its last use. */
export function acquire(state: RouterState, u: Upstream): void {
  u.cell.inFlight++;
  u.cell.lastUsedMs = state.nowMs();
}

/** The attempt on `u` ended; `failed` = a 5xx answer or a failed connection. */
export function release(u: Upstream, failed: boolean): void {
  const cell = u.cell;
  cell.inFlight--;
  cell.requests++;
  if (failed) cell.errors++;
}

/**
 * Replace the table. A replica whose id and URL are unchanged keeps its Upstream
 * (and its connections); requests already running keep the Upstream they hold,
 * so they finish where they are while new requests see only the new table.
 */
export function swapTable(state: RouterState, endpoints: RouterEndpoints): void {
  const previous = new Map<string, Upstream>();
  for (const route of state.models.values()) {
    for (const u of route.upstreams) previous.set(`${u.replica}\n${u.url}`, u);
  }
  const models = new Map<string, ModelRoute>();
  for (const model of Object.keys(endpoints.models)) {
    const upstreams = endpoints.models[model]!.map((e) => {
      const key = `${e.replica}\n${e.url}`;
      const kept = previous.get(key);
      previous.delete(key);
      return kept ?? newUpstream(state, e.replica, e.url);
    });
    const old = state.models.get(model);
    models.set(model, {
      mode: endpoints.routing?.[model] ?? 'prefix',
      upstreams,
      ring: buildRing(upstreams.map((u) => u.replica)),
      loads: new Int32Array(upstreams.length),
      cursor: old && upstreams.length > 0 ? old.cursor % upstreams.length : 0,
    });
  }
  state.models = models;
  if (previous.size > 0) state.onDropped([...previous.values()]);
}

function newUpstream(state: RouterState, replica: string, url: string): Upstream {
  let cell = state.cells.get(replica);
  if (!cell) {
    cell = { lastUsedMs: 0, inFlight: 0, requests: 0, errors: 0 };
    state.cells.set(replica, cell);
  }
  const parsed = new URL(url);
  return { replica, url, origin: parsed.origin, basePath: parsed.pathname.replace(/\/+$/, ''), cell, pool: null };
}

/**
 * docs/protocol.md `router usage`: `lastUsed` and `served` list the replicas
 * served since the start (others are absent); `inflight` lists every replica of
 * the table (0 when idle) and any replica gone from it that still has requests
 * running. Keys sorted.
 */
export function usageOf(state: RouterState): RouterUsage {
  const lastUsed: Record<string, string> = {};
  const inflight: Record<string, number> = {};
  const served: Record<string, { requests: number; errors: number }> = {};
  const inTable = new Set<string>();
  for (const route of state.models.values()) for (const u of route.upstreams) inTable.add(u.replica);
  for (const replica of [...state.cells.keys()].sort()) {
    const cell = state.cells.get(replica)!;
    if (cell.lastUsedMs > 0) lastUsed[replica] = new Date(cell.lastUsedMs).toISOString();
    if (cell.inFlight > 0 || inTable.has(replica)) inflight[replica] = cell.inFlight;
    if (cell.requests > 0) served[replica] = { requests: cell.requests, errors: cell.errors };
  }
  return { version: 1, startedAt: new Date(state.startedAtMs).toISOString(), lastUsed, inflight, served };
}

/**
 * The table as the router routes by it now, for `router usage` (`table`):
 * the reconciler keeps a route to a replica on an unreachable node only when a
 * router already holds it (docs/security.md). Models and replicas in table order.
 */
export function tableOf(state: RouterState): RouterEndpoints['models'] {
  const out: RouterEndpoints['models'] = {};
  for (const [model, route] of state.models) out[model] = route.upstreams.map((u) => ({ replica: u.replica, url: u.url }));
  return out;
}

/** Models with at least one replica to send to, sorted: what `/v1/models` lists. */
export function servableModels(state: RouterState): string[] {
  return [...state.models]
    .filter(([, r]) => r.upstreams.length > 0)
    .map(([m]) => m)
    .sort();
}
