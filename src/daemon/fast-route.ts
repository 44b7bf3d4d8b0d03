// A starting replica routed the moment it runs (docs/operations.md#which-trigger-sees-what):
// while requests wait at a router for a model with a replica of record
// starting, `llmgw run` asks that replica's node whether it runs yet and, once
// it does, hands every router its table with the replica added, under the lease
// and with its epoch, without waiting for the next tick.
//
// What this changes, and what not: the routers' tables only. The replica
// enters at the URL cluster.yaml and its port of record give
// (src/fleet/routes.ts), only once its node answers now that it runs; nothing
// leaves a table, a router whose table is unknown is left to the tick, and the
// routing modes and per-model settings are src/apply/router-tables.ts's own.
// Nothing is written to git: the next tick observes the replica running and
// commits STATUS.md and state.json as ever.

import { endpointTable, pushTables } from '../apply/router-tables.js';
import type { ApplyGuard } from '../apply/guard.js';
import { replicaUrl } from '../fleet/routes.js';
import type { Config } from '../types/config.js';
import type { Fleet } from '../types/fleet.js';
import type { RouterEndpoints, RouterObservation } from '../types/snapshot.js';
import type { PlacementRecord } from '../types/state.js';
import type { Transport } from '../types/transport.js';

export interface Candidate {
  replica: string;
  model: string;
  /** Rank 0's node: where its endpoint is. */
  node: string;
  port: number;
}

/** Replicas of record starting for a model that requests wait for at some router now. */
export function startingForDemand(placements: Readonly<Record<string, PlacementRecord>>, routers: readonly RouterObservation[]): Candidate[] {
  const waiting = new Set<string>();
  for (const r of routers) if (r.reachable) for (const [m, w] of Object.entries(r.report.waiting ?? {})) if (w.count > 0) waiting.add(m);
  const out: Candidate[] = [];
  for (const [replica, p] of Object.entries(placements).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const head = p.ranks.find((k) => k.rank === 0) ?? p.ranks[0];
    if (p.state !== 'starting' || !waiting.has(p.model) || head === undefined || p.port === undefined) continue;
    out.push({ replica, model: p.model, node: head.node, port: p.port });
  }
  return out;
}

/** No replicas: endpointTable of it is every model's routing mode and settings, with empty lists. */
function noReplicas(config: Config): Fleet {
  return { config, now: '', observedAt: '', nodes: [], nodeByName: new Map(), replicas: [], replicaById: new Map(), routersAnswered: false };
}

/**
 * Each router's table now (as its usage said) with `running` added; null for a
 * router whose table is unknown, or that lists them all already.
 */
export function tablesWith(config: Config, routers: readonly RouterObservation[], running: readonly Candidate[]): Map<string, RouterEndpoints> {
  const base = endpointTable(config, noReplicas(config), new Set());
  const hostOf = new Map(config.cluster.nodes.map((n) => [n.name, n.host]));
  const out = new Map<string, RouterEndpoints>();
  for (const r of routers) {
    if (!r.reachable || r.report.table === undefined) continue;
    const current = r.report.table;
    const models: RouterEndpoints['models'] = {};
    for (const name of Object.keys(base.models)) models[name] = [...(current[name] ?? [])];
    let added = false;
    for (const c of running) {
      const host = hostOf.get(c.node);
      const list = models[c.model];
      if (host === undefined || list === undefined || list.some((e) => e.replica === c.replica)) continue;
      list.push({ replica: c.replica, url: replicaUrl(host, c.port) });
      list.sort((a, b) => (a.replica < b.replica ? -1 : a.replica > b.replica ? 1 : 0));
      added = true;
    }
    if (added) out.set(r.name, { ...base, models });
  }
  return out;
}

/** Push the tables that gain a running replica; the routers that took theirs. */
export async function routeRunning(
  config: Config,
  transport: Transport,
  routers: readonly RouterObservation[],
  running: readonly Candidate[],
  guard: ApplyGuard,
): Promise<{ routed: string[]; failed: string[] }> {
  const tables = tablesWith(config, routers, running);
  if (tables.size === 0) return { routed: [], failed: [] };
  const only = { ...config, cluster: { ...config.cluster, routers: config.cluster.routers.filter((r) => tables.has(r.name)) } };
  const pushed = await pushTables((name) => tables.get(name) as RouterEndpoints, only, transport, guard);
  return { routed: pushed.results.filter((r) => r.ok).map((r) => r.router), failed: pushed.failures.map((f) => `${f.host}: ${f.error}`) };
}
