// The routers' endpoint tables (docs/protocol.md `router endpoints`): every model of
// models.yaml, each with its running replicas only, minus those this tick
// stops — a replica leaves every table before it stops, so no request is sent
// to a process that is going away.

import type { Config } from '../types/config.js';
import type { Fleet, FleetReplica } from '../types/fleet.js';
import type { RouterEndpoints } from '../types/snapshot.js';
import type { Transport } from '../types/transport.js';
import type { ApplyFailure, RouterTableResult } from './outcome.js';
import { crashPoint } from '../util/crash-point.js';

function urlOf(replica: FleetReplica, fleet: Fleet): string | null {
  if (replica.endpoint) return replica.endpoint;
  const head = replica.nodes[0] === undefined ? undefined : fleet.nodeByName.get(replica.nodes[0]);
  return head && replica.port !== null ? `http://${head.config.host}:${replica.port}` : null;
}

/** Whether a replica belongs in the routers' tables: running as observed and not lost. */
export function serving(r: FleetReplica): boolean {
  return r.state === 'running' && !r.lost;
}

/**
 * The table as it should stand: replicas running as observed (a lost one
 * counts as gone; one on a merely unreachable node is assumed still serving,
 * as docs/placement.md assumes its last report still true), minus `leaving`.
 */
export function endpointTable(config: Config, fleet: Fleet, leaving: ReadonlySet<string>): RouterEndpoints {
  const models: RouterEndpoints['models'] = {};
  const routing: NonNullable<RouterEndpoints['routing']> = {};
  for (const m of config.models) {
    models[m.name] = [];
    if (m.routing) routing[m.name] = m.routing;
  }
  for (const r of fleet.replicas) {
    const list = models[r.model];
    if (!list || !serving(r) || leaving.has(r.id)) continue;
    const url = urlOf(r, fleet);
    if (url) list.push({ replica: r.id, url });
  }
  // Only models that name a mode are listed: the table of a config that names none stays as routers before 0.2 knew it.
  return Object.keys(routing).length > 0 ? { version: 1, models, routing } : { version: 1, models };
}

export async function pushTables(
  table: RouterEndpoints,
  config: Config,
  transport: Transport,
): Promise<{ results: RouterTableResult[]; failures: ApplyFailure[] }> {
  const command = `${config.cluster.router.command} endpoints`;
  const body = JSON.stringify(table);
  const results = await Promise.all(
    config.cluster.routers.map(async (rt): Promise<RouterTableResult> => {
      try {
        // Exit 0 is the router's acceptance; its reply carries nothing we use.
        await transport.run({ name: rt.name, host: rt.host, port: rt.port }, command, body);
        crashPoint('apply:tables');
        return { router: rt.name, ok: true };
      } catch (err) {
        return { router: rt.name, ok: false, error: err instanceof Error ? err.message : String(err) };
      }
    }),
  );
  const failures = results
    .filter((r) => !r.ok)
    .map((r): ApplyFailure => ({ op: 'endpoints', replica: null, model: null, host: r.router, error: r.error! }));
  return { results, failures };
}
