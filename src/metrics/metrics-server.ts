// The HTTP side of `--metrics HOST:PORT`: GET /metrics answers the registry in
// Prometheus' text format (prom-client renders it); anything else is 404.
// Loopback unless the operator says otherwise: the numbers are not secret, but
// they map the fleet.

import { createServer } from 'node:http';
import type { Registry } from 'prom-client';
import { UsageError } from '../errors.js';
import { listenOn } from '../util/listen.js';

export interface Listen {
  host: string;
  port: number;
}

/** `HOST:PORT`, `[v6]:PORT`, or `:PORT` (every interface). */
export function parseMetricsListen(text: string): Listen {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(text);
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) throw new UsageError(`--metrics must be HOST:PORT (e.g. 127.0.0.1:9464), got '${text}'`);
  return { host: m[1] ?? (m[2] || '0.0.0.0'), port };
}

export interface MetricsServer {
  /** e.g. http://127.0.0.1:9464/metrics, with the port actually bound. */
  url: string;
  close(): Promise<void>;
}

export async function startMetricsServer(listen: Listen, registry: Registry): Promise<MetricsServer> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found: metrics are at /metrics\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end('method not allowed\n');
      return;
    }
    registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'content-type': registry.contentType, 'content-length': Buffer.byteLength(text) });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (err: unknown) => {
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end(`metrics failed: ${err instanceof Error ? err.message : String(err)}\n`);
      },
    );
  });
  // A scraper that keeps its connection open must not hold up a shutdown.
  server.keepAliveTimeout = 5_000;
  const url = await listenOn(server, listen, '--metrics');
  return {
    url: `${url}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
