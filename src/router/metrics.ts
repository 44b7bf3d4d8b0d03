// `router serve --metrics HOST:PORT`: Prometheus text at /metrics, written by
// prom-client from the router's own counters (stats.ts). The counters and the
// in-flight gauge are read from those counters when scraped (prom-client's
// collect()), so the request path pays an addition, not a label lookup; only the
// duration histogram is fed per request, through a child resolved once per model.

import http from 'node:http';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { RouterError } from './router-error.js';
import { RouterStats } from './stats.js';

/** Seconds: from a quick refusal to a long streamed answer. */
export const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

export interface RouterMetrics {
  readonly registry: Registry;
  readonly stats: RouterStats;
}

export function createRouterMetrics(): RouterMetrics {
  const registry = new Registry();
  const durations = new Histogram({
    name: 'llmgw_router_request_duration_seconds',
    help: 'Time from a request arriving at the router to the end of its answer, per model.',
    labelNames: ['model'],
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const stats = new RouterStats((model) => durations.labels(model));
  new Counter({
    name: 'llmgw_router_requests_total',
    help: 'Requests answered, per model and HTTP status (499: the client left first; model "-": no model of the table).',
    labelNames: ['model', 'code'],
    registers: [registry],
    collect() {
      this.reset();
      for (const s of stats.models.values()) for (const [code, n] of s.codes) this.inc({ model: s.model, code: String(code) }, n);
    },
  });
  new Gauge({
    name: 'llmgw_router_inflight',
    help: 'Requests of each model between being routed and the end of their answer, now.',
    labelNames: ['model'],
    registers: [registry],
    collect() {
      this.reset();
      for (const s of stats.models.values()) if (s.model !== '-') this.set({ model: s.model }, s.inflight);
    },
  });
  return { registry, stats };
}

/** The /metrics listener; anything else is 404. */
export async function serveMetrics(metrics: RouterMetrics, listen: { host: string; port: number }): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    if (req.url !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      return void res.end('not found: the metrics are at GET /metrics\n');
    }
    metrics.registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'content-type': metrics.registry.contentType });
        res.end(text);
      },
      () => {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end('metrics unavailable\n');
      },
    );
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(listen.port, listen.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    throw new RouterError(`cannot listen for metrics on ${listen.host}:${listen.port}: ${(err as Error).message}`, { cause: err });
  }
  return server;
}
