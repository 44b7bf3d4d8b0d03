// The routing table and the bookkeeping that picks a replica. Idle tracking lives
// here on purpose: the moment a request acquires a replica is the moment it was
// last used, so that moment is written into one number per replica (the newest
// wins) and read as a map only when `router usage` asks. No per-request
// notification, no log to scan: the cost is the same with 4 replicas or 400.

import type { RouterEndpoints, RouterUsage } from '../types/snapshot.js';

/** One replica id's last-use time. Kept across table swaps, so a replica that leaves and comes back keeps its history. */
interface UsageCell {
  /** Epoch ms of the newest acquisition; 0 = not served since the router started. */
  lastUsedMs: number;
}

/** A replica as the proxy sees it: where to send, and how busy it is. */
export interface Upstream {
  readonly replica: string;
  readonly url: string;
  readonly https: boolean;
  /** Host name for http.request (IPv6 without brackets). */
  readonly hostname: string;
  readonly port: number;
  /** The Host header to send: host[:port] as the URL wrote it. */
  readonly hostHeader: string;
  /** The endpoint URL's path without a trailing slash; '' for a bare origin. */
  readonly basePath: string;
  /** Requests acquired and not yet finished. */
  inFlight: number;
  readonly usage: UsageCell;
}

export interface ModelRoute {
  readonly upstreams: readonly Upstream[];
  /** Where the round-robin among equally busy replicas starts next. */
  cursor: number;
}

export interface RouterState {
  readonly startedAtMs: number;
  readonly nowMs: () => number;
  /** Replaced whole on a swap, never edited: a request sees one table or the next. */
  models: ReadonlyMap<string, ModelRoute>;
  readonly usage: Map<string, UsageCell>;
}

export function createRouterState(nowMs: () => number): RouterState {
  return { startedAtMs: nowMs(), nowMs, models: new Map(), usage: new Map() };
}

/**
 * The least busy replica of a route, ties broken round-robin; `exclude` is the
 * replica that just failed (a retry goes elsewhere). null when none is left.
 */
export function pickUpstream(route: ModelRoute, exclude: Upstream | null): Upstream | null {
  const list = route.upstreams;
  const n = list.length;
  let best: Upstream | null = null;
  let bestIndex = 0;
  for (let i = 0; i < n; i++) {
    const index = (route.cursor + i) % n;
    const u = list[index]!;
    if (u === exclude) continue;
    if (best === null || u.inFlight < best.inFlight) {
      best = u;
      bestIndex = index;
    }
  }
  if (best !== null) route.cursor = (bestIndex + 1) % n;
  return best;
}

/** Take a replica for one request: counts it in flight and stamps its last use. */
export function acquire(state: RouterState, u: Upstream): void {
  u.inFlight++;
  u.usage.lastUsedMs = state.nowMs();
}

export function release(u: Upstream): void {
  u.inFlight--;
}

/**
 * Replace the table. A replica whose id and URL are unchanged keeps its Upstream
 * (and so its in-flight count); requests already running keep the Upstream they
 * hold, so they finish where they are while new requests see only the new table.
 */
export function swapTable(state: RouterState, endpoints: RouterEndpoints): void {
  const previous = new Map<string, Upstream>();
  for (const route of state.models.values()) {
    for (const u of route.upstreams) previous.set(`${u.replica}\n${u.url}`, u);
  }
  const models = new Map<string, ModelRoute>();
  for (const model of Object.keys(endpoints.models)) {
    const upstreams = endpoints.models[model]!.map(
      (e) => previous.get(`${e.replica}\n${e.url}`) ?? newUpstream(state, e.replica, e.url),
    );
    const old = state.models.get(model);
    models.set(model, { upstreams, cursor: old && upstreams.length > 0 ? old.cursor % upstreams.length : 0 });
  }
  state.models = models;
}

function newUpstream(state: RouterState, replica: string, url: string): Upstream {
  let cell = state.usage.get(replica);
  if (!cell) {
    cell = { lastUsedMs: 0 };
    state.usage.set(replica, cell);
  }
  const parsed = new URL(url);
  const https = parsed.protocol === 'https:';
  const hostname = parsed.hostname.startsWith('[') ? parsed.hostname.slice(1, -1) : parsed.hostname;
  return {
    replica,
    url,
    https,
    hostname,
    port: parsed.port ? Number(parsed.port) : https ? 443 : 80,
    hostHeader: parsed.host,
    basePath: parsed.pathname.replace(/\/+$/, ''),
    inFlight: 0,
    usage: cell,
  };
}

/** docs/protocol.md `router usage`: replicas never served since start are absent. Keys sorted. */
export function usageOf(state: RouterState): RouterUsage {
  const lastUsed: Record<string, string> = {};
  for (const replica of [...state.usage.keys()].sort()) {
    const ms = state.usage.get(replica)!.lastUsedMs;
    if (ms > 0) lastUsed[replica] = new Date(ms).toISOString();
  }
  return { version: 1, startedAt: new Date(state.startedAtMs).toISOString(), lastUsed };
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
  return [...state.models].filter(([, r]) => r.upstreams.length > 0).map(([m]) => m).sort();
}
