// The routers' endpoint tables (docs/protocol.md `router endpoints`): every model of
// models.yaml, each with its running replicas only, minus those this tick
// stops — a replica leaves every table before it stops, so no request is sent
// to a process that is going away.
//
// What a table may hold (docs/security.md): URLs built from cluster.yaml
// (src/fleet/routes.ts), never one a report claims; and a replica enters a
// table only when a node that answered in this tick reports it running. One
// known only from a carried-over report (its node unreachable, not yet lost)
// keeps the route a router already has for it — as that router's `usage`
// reply lists it this tick — and is never added from the report, which may be
// a stale or forged line of the committed .llmgw/observed.json. So each router
// gets its own table: the same new routes, and its own kept ones.
//
// Data path over control path (docs/placement.md#5-lost): a node that stops
// answering SSH may still serve — a dead sshd kills no engine. Its replicas
// count as gone for the planner (their replacements are placed), but a router
// that lists one and does not eject it keeps that route until the model has
// as many replicas of its own in that router's table as models.yaml asks for:
// lost means "replace", not "cut". One the router ejected (it does not answer
// there) or no longer lists goes at once, as before.

import { routedUrl } from '../fleet/routes.js';
import { LIVENESS_DEFAULTS, type Config, type LivenessConfig } from '../types/config.js';
import type { Fleet, FleetReplica } from '../types/fleet.js';
import type { RouterEndpoints, RouterModelSettings, RouterObservation } from '../types/snapshot.js';
import type { Transport } from '../types/transport.js';
import type { ApplyFailure, RouterTableResult } from './outcome.js';
import { crashPoint } from '../util/crash-point.js';
import { isFenced, type ApplyGuard } from './guard.js';

/** A router's refusal of a stale lease (`{"ok":false,"error":"fenced: …"}`, exit 0); null for any other reply. */
function fencedReply(stdout: string): string | null {
  try {
    const v = JSON.parse(stdout) as { ok?: unknown; error?: unknown } | null;
    return v !== null && typeof v === 'object' && v.ok === false && typeof v.error === 'string' && isFenced(v.error) ? v.error : null;
  } catch {
    return null;
  }
}

/** A router's table as it reported it this tick (`router usage` → `table`); null when it did not say. */
export type CurrentTable = RouterEndpoints['models'] | null;

/** Each router's current table, from this tick's observation; a router that did not answer, or did not say, has null. */
export function currentTables(routers: readonly RouterObservation[] | undefined): Map<string, CurrentTable> {
  const out = new Map<string, CurrentTable>();
  for (const r of routers ?? []) out.set(r.name, r.reachable && r.report.table !== undefined ? r.report.table : null);
  return out;
}

/** Each router's replicas out of its rotation now (`router usage` → `ejected`); a router that did not answer has none. */
export function currentEjections(routers: readonly RouterObservation[] | undefined): Map<string, ReadonlySet<string>> {
  const out = new Map<string, ReadonlySet<string>>();
  for (const r of routers ?? []) out.set(r.name, new Set(r.reachable ? Object.keys(r.report.ejected ?? {}) : []));
  return out;
}

function listed(current: CurrentTable, model: string, replica: string, url: string): boolean {
  return (current?.[model] ?? []).some((e) => e.replica === replica && e.url === url);
}

/**
 * The lost replicas a router keeps: those it lists at their built URL and does
 * not eject, sorted by id, as many as the model lacks of routes this router
 * already holds to replicas that are not lost (a replacement counts once the
 * router has taken a table with it, so the old route goes only after the new
 * one is in use).
 */
function keptLost(
  model: { name: string; replicas: number },
  entries: readonly { replica: string; url: string }[],
  lost: readonly { replica: string; url: string }[],
  current: CurrentTable,
  ejected: ReadonlySet<string>,
): { replica: string; url: string }[] {
  const routedNow = entries.filter((e) => listed(current, model.name, e.replica, e.url)).length;
  const answering = lost.filter((e) => listed(current, model.name, e.replica, e.url) && !ejected.has(e.replica));
  return answering.sort((a, b) => (a.replica < b.replica ? -1 : a.replica > b.replica ? 1 : 0)).slice(0, Math.max(0, model.replicas - routedNow));
}

/** Whether a replica belongs in the routers' tables: running as observed and not lost. */
export function serving(r: FleetReplica): boolean {
  return r.state === 'running' && !r.lost;
}

/**
 * The table as it should stand for a router whose table is now `current` and
 * which ejects `ejected`: replicas running as observed, at the URL cluster.yaml
 * gives them, minus `leaving`. A replica with a rank on an unreachable node
 * (assumed still serving, as docs/placement.md assumes its last report still
 * true) stays only where `current` already lists it at that URL; one on a lost
 * node stays only there too, not ejected, and only until its model's
 * replacements are routed (keptLost).
 */
export function endpointTable(
  config: Config,
  fleet: Fleet,
  leaving: ReadonlySet<string>,
  current: CurrentTable = null,
  ejected: ReadonlySet<string> = new Set(),
): RouterEndpoints {
  const models: RouterEndpoints['models'] = {};
  const routing: NonNullable<RouterEndpoints['routing']> = {};
  const settings: NonNullable<RouterEndpoints['settings']> = {};
  for (const m of config.models) {
    models[m.name] = [];
    if (m.routing) routing[m.name] = m.routing;
    const l = { ...livenessSettings(m.liveness), ...onDemandSettings(m) };
    if (Object.keys(l).length > 0) settings[m.name] = l;
  }
  const lost = new Map<string, { replica: string; url: string }[]>();
  for (const r of fleet.replicas) {
    const list = models[r.model];
    if (!list || r.state !== 'running' || leaving.has(r.id)) continue;
    const url = routedUrl(r, fleet);
    if (url === null) continue;
    if (r.lost) lost.set(r.model, [...(lost.get(r.model) ?? []), { replica: r.id, url }]);
    else if (!r.unreachable || listed(current, r.model, r.id, url)) list.push({ replica: r.id, url });
  }
  for (const m of config.models) {
    const list = models[m.name];
    const gone = lost.get(m.name);
    const kept = list && gone ? keptLost(m, list, gone, current, ejected) : [];
    // In id order with the others, as fleet.replicas lists them.
    if (list && kept.length > 0) list.splice(0, list.length, ...[...list, ...kept].sort((a, b) => (a.replica < b.replica ? -1 : 1)));
  }
  // Only models that name a mode are listed: the table of a config that names none stays as routers before 0.2 knew it.
  const table: RouterEndpoints = Object.keys(routing).length > 0 ? { version: 1, models, routing } : { version: 1, models };
  return Object.keys(settings).length > 0 ? { ...table, settings } : table;
}

/**
 * A model's ejection settings for the routers (docs/protocol.md `router endpoints`), or
 * null when they are the built-in ones: then the router's own (its `router serve`
 * flags) stay in force, and a config that sets no liveness sends the table it always did.
 */
function livenessSettings(l: LivenessConfig | undefined): RouterModelSettings | null {
  if (l === undefined) return null;
  const d = LIVENESS_DEFAULTS;
  if (l.consecutiveErrors === d.consecutiveErrors && l.stallAfterMs === d.stallAfterMs && l.ejectForMs === d.ejectForMs) return null;
  return { consecutiveErrors: l.consecutiveErrors, stallAfterMs: l.stallAfterMs, ejectForMs: l.ejectForMs };
}

/** A model's waitTimeout and adapter names for the routers; {} when it writes neither (the router's defaults stay). */
function onDemandSettings(m: Config['models'][number]): RouterModelSettings {
  return {
    ...(m.waitTimeoutMs !== undefined ? { waitTimeoutMs: m.waitTimeoutMs } : {}),
    ...(m.adapters !== undefined && m.adapters.length > 0 ? { adapters: m.adapters.map((a) => a.name) } : {}),
  };
}

export async function pushTables(
  tableFor: (router: string) => RouterEndpoints,
  config: Config,
  transport: Transport,
  guard: ApplyGuard,
): Promise<{ results: RouterTableResult[]; failures: ApplyFailure[] }> {
  const command = `${config.cluster.router.command} endpoints`;
  const lease = guard.lease;
  const results = await Promise.all(
    config.cluster.routers.map(async (rt): Promise<RouterTableResult> => {
      try {
        const table = { ...tableFor(rt.name), ...(lease ? { lease } : {}) };
        // Exit 0 is the router's acceptance, unless its reply says the lease is stale.
        const refused = fencedReply(await transport.run({ name: rt.name, host: rt.host, port: rt.port }, command, JSON.stringify(table)));
        if (refused !== null) {
          guard.fenced(refused);
          return { router: rt.name, ok: false, error: refused };
        }
        crashPoint('apply:tables');
        return { router: rt.name, ok: true };
      } catch (err) {
        return { router: rt.name, ok: false, error: err instanceof Error ? err.message : String(err) };
      }
    }),
  );
  const failures = results
    .filter((r) => !r.ok)
    .map((r): ApplyFailure => ({ op: 'endpoints', replica: null, model: null, host: r.router, error: r.error ?? '' }));
  return { results, failures };
}
