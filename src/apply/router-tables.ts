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

function listed(current: CurrentTable, r: FleetReplica, url: string): boolean {
  return (current?.[r.model] ?? []).some((e) => e.replica === r.id && e.url === url);
}

/** Whether a replica belongs in the routers' tables: running as observed and not lost. */
export function serving(r: FleetReplica): boolean {
  return r.state === 'running' && !r.lost;
}

/**
 * The table as it should stand for a router whose table is now `current`:
 * replicas running as observed (a lost one counts as gone), at the URL
 * cluster.yaml gives them, minus `leaving`. A replica with a rank on an
 * unreachable node (assumed still serving, as docs/placement.md assumes its
 * last report still true) stays only where `current` already lists it at
 * that URL.
 */
export function endpointTable(config: Config, fleet: Fleet, leaving: ReadonlySet<string>, current: CurrentTable = null): RouterEndpoints {
  const models: RouterEndpoints['models'] = {};
  const routing: NonNullable<RouterEndpoints['routing']> = {};
  const settings: NonNullable<RouterEndpoints['settings']> = {};
  for (const m of config.models) {
    models[m.name] = [];
    if (m.routing) routing[m.name] = m.routing;
    const l = livenessSettings(m.liveness);
    if (l !== null) settings[m.name] = l;
  }
  for (const r of fleet.replicas) {
    const list = models[r.model];
    if (!list || !serving(r) || leaving.has(r.id)) continue;
    const url = routedUrl(r, fleet);
    if (url === null) continue;
    if (!r.unreachable || listed(current, r, url)) list.push({ replica: r.id, url });
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
