// The routing table and the bookkeeping that picks a replica. Idle tracking,
// in-flight counts and served counters live here on purpose: the moment a request
// acquires a replica is the moment it was last used, so that moment is written
// into one number per replica (the newest wins) and read as a map only when
// `router usage` asks. No per-request notification, no log to scan: the cost is
// a few counters, the same with 4 replicas or 400.

import type { Dispatcher } from 'undici';
import type { RouterEjection, RouterEndpoints, RouterUsage, RoutingMode } from '../types/snapshot.js';
import { DEFAULT_LIVENESS, ejectionOf, type EjectionRun, type LivenessSettings } from './liveness.js';
import { buildRing, pickOnRing, type Ring } from './ring.js';

/** One attempt in flight on a replica, as ejection sees it (exchange.ts): it is retried elsewhere or its stream is ended. */
export interface Attempt {
  onEjected(): void;
}

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
  /** Failed attempts in a row (liveness.ts); a success resets it, what the client or the router caused leaves it. */
  consecutive: number;
  /** The current (or last) run of ejections; `out` while the replica is out of rotation. */
  run: EjectionRun | null;
  /** Requests in flight that asked for `"stream": true`. */
  streaming: number;
  /** Response chunks received from the replica; the stall sweep compares it with `bytesSeen`. */
  bytes: number;
  bytesSeen: number;
  /** Since when the replica has sent nothing while streaming requests were in flight (the stall clock). */
  quietSinceMs: number;
  /** The attempts in flight on it, for an ejection to act on. */
  readonly attempts: Set<Attempt>;
}

/** A replica as the proxy sees it: where to send, and how busy it is. */
export interface Upstream {
  readonly replica: string;
  /** The model whose table entry made it. */
  readonly model: string;
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
  /** Scratch for the ring walk: out[i] = 1 while upstreams[i] is ejected. */
  readonly out: Uint8Array;
  /** Where the round-robin among equally busy replicas starts next. */
  cursor: number;
  /** Liveness and waiting settings: the table's `settings` over the router's defaults. */
  readonly settings: LivenessSettings;
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
  /** Adapter name -> its base model (the table's `settings.<model>.adapters`). */
  adapters: ReadonlyMap<string, string>;
  /** The settings of a model the table gives none for (router serve flags). */
  defaults: LivenessSettings;
  /** Called after every swap (waiting requests may now have a replica). */
  onSwapped: () => void;
  /** Requests waiting per model, for `router usage` (waiting.ts); null before the proxy is made. */
  waitingOf: (() => Record<string, { count: number; oldest: string }>) | null;
}

export function createRouterState(nowMs: () => number): RouterState {
  return {
    startedAtMs: nowMs(),
    nowMs,
    models: new Map(),
    cells: new Map(),
    onDropped: () => undefined,
    highestEpoch: 0,
    adapters: new Map(),
    defaults: DEFAULT_LIVENESS,
    onSwapped: () => undefined,
    waitingOf: null,
  };
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
    const out = route.out;
    let anyOut = false;
    for (let i = 0; i < list.length; i++) {
      // i < list.length: never skipped, the check only narrows.
      const cell = list[i]?.cell;
      if (cell === undefined) continue;
      loads[i] = cell.inFlight;
      anyOut = (out[i] = cell.run?.out ? 1 : 0) === 1 || anyOut;
    }
    const i = pickOnRing(route.ring, key, loads, exclude ? list.indexOf(exclude) : -1, anyOut ? out : null);
    return i < 0 ? null : (list[i] ?? null);
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
    const u = list[index];
    if (u === undefined || u === exclude || u.cell.run?.out) continue;
    if (best === null || u.cell.inFlight < best.cell.inFlight) {
      best = u;
      bestIndex = index;
    }
  }
  if (best !== null) route.cursor = (bestIndex + 1) % n;
  return best;
}

/** Take a replica for one attempt: counts it in flight and stamps its last use (and, for a first stream, starts the stall clock). */
export function acquire(state: RouterState, u: Upstream, attempt: Attempt | null = null, streaming = false): void {
  const cell = u.cell;
  const now = state.nowMs();
  cell.inFlight++;
  cell.lastUsedMs = now;
  if (attempt) cell.attempts.add(attempt);
  if (streaming && cell.streaming++ === 0) cell.quietSinceMs = now;
}

/**
 * The attempt on `u` ended. `failed`: true = a 5xx answer or a failed
 * connection (the replica's error); false = answered; null = neither (the
 * client left, the router itself could not go on): served, never charged.
 */
export function release(u: Upstream, failed: boolean | null, attempt: Attempt | null = null, streaming = false): void {
  const cell = u.cell;
  cell.inFlight--;
  cell.requests++;
  if (attempt) cell.attempts.delete(attempt);
  if (streaming) cell.streaming--;
  if (failed === true) {
    cell.errors++;
    cell.consecutive++;
  } else if (failed === false) cell.consecutive = 0;
}

/**
 * Replace the table. A replica whose id and URL are unchanged keeps its Upstream
 * (and its connections); requests already running keep the Upstream they hold,
 * so they finish where they are while new requests see only the new table.
 */
export function swapTable(state: RouterState, endpoints: RouterEndpoints): void {
  const previous = new Map<string, Upstream>();
  for (const route of state.models.values()) {
    for (const u of route.upstreams) previous.set(`${u.model}\n${u.replica}\n${u.url}`, u);
  }
  const models = new Map<string, ModelRoute>();
  for (const [model, entries] of Object.entries(endpoints.models)) {
    const upstreams = entries.map((e) => {
      const key = `${model}\n${e.replica}\n${e.url}`;
      const kept = previous.get(key);
      previous.delete(key);
      return kept ?? newUpstream(state, model, e.replica, e.url);
    });
    const old = state.models.get(model);
    const given = endpoints.settings?.[model] ?? {};
    models.set(model, {
      mode: endpoints.routing?.[model] ?? 'prefix',
      upstreams,
      ring: buildRing(upstreams.map((u) => u.replica)),
      loads: new Int32Array(upstreams.length),
      out: new Uint8Array(upstreams.length),
      cursor: old && upstreams.length > 0 ? old.cursor % upstreams.length : 0,
      settings: {
        consecutiveErrors: given.consecutiveErrors ?? state.defaults.consecutiveErrors,
        stallAfterMs: given.stallAfterMs ?? state.defaults.stallAfterMs,
        ejectForMs: given.ejectForMs ?? state.defaults.ejectForMs,
        waitTimeoutMs: given.waitTimeoutMs ?? state.defaults.waitTimeoutMs,
      },
    });
  }
  const adapters = new Map<string, string>();
  for (const [model, settings] of Object.entries(endpoints.settings ?? {})) {
    if (models.has(model)) for (const name of settings.adapters ?? []) adapters.set(name, model);
  }
  state.models = models;
  state.adapters = adapters;
  if (previous.size > 0) state.onDropped([...previous.values()]);
  state.onSwapped();
}

/** The route of a request's `model`: a model of the table, or an adapter's base model (its key unchanged). */
export function routeOf(state: RouterState, model: string): { name: string; route: ModelRoute } | null {
  const route = state.models.get(model);
  if (route) return { name: model, route };
  const base = state.adapters.get(model);
  if (base === undefined) return null;
  const baseRoute = state.models.get(base);
  return baseRoute ? { name: base, route: baseRoute } : null;
}

function newUpstream(state: RouterState, model: string, replica: string, url: string): Upstream {
  let cell = state.cells.get(replica);
  if (!cell) {
    cell = newCell();
    state.cells.set(replica, cell);
  }
  const parsed = new URL(url);
  return { replica, model, url, origin: parsed.origin, basePath: parsed.pathname.replace(/\/+$/, ''), cell, pool: null };
}

export function newCell(): ReplicaCell {
  return {
    lastUsedMs: 0,
    inFlight: 0,
    requests: 0,
    errors: 0,
    consecutive: 0,
    run: null,
    streaming: 0,
    bytes: 0,
    bytesSeen: 0,
    quietSinceMs: 0,
    attempts: new Set(),
  };
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
  const ejected: Record<string, RouterEjection> = {};
  const inTable = new Set<string>();
  for (const route of state.models.values()) for (const u of route.upstreams) inTable.add(u.replica);
  for (const replica of [...state.cells.keys()].sort()) {
    const cell = state.cells.get(replica);
    if (cell === undefined) continue;
    if (cell.lastUsedMs > 0) lastUsed[replica] = new Date(cell.lastUsedMs).toISOString();
    if (cell.inFlight > 0 || inTable.has(replica)) inflight[replica] = cell.inFlight;
    if (cell.requests > 0) served[replica] = { requests: cell.requests, errors: cell.errors };
    if (cell.run?.out) ejected[replica] = ejectionOf(cell.run);
  }
  const waiting = state.waitingOf?.() ?? {};
  return { version: 1, startedAt: new Date(state.startedAtMs).toISOString(), lastUsed, inflight, served, ejected, waiting };
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
