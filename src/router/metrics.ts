// `router serve --metrics HOST:PORT`: Prometheus text at /metrics, written by
// prom-client from the router's own counters (stats.ts), which are copied into
// prom-client's metrics when scraped (its collect() hook). The request path pays
// a few additions whether metrics are on or not, never a label lookup.

import http from 'node:http';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { RouterError } from './router-error.js';
import { DURATION_BUCKETS, NO_MODEL, RouterStats } from './stats.js';

/**
 * The part of prom-client's Histogram that collect() fills: one entry per label
 * set, with counts per upper bound (not cumulative), sum and count — what
 * observe() builds. Pinned by package-lock; test/router/metrics.test.ts checks the output.
 */
interface HistogramEntries {
  hashMap: Record<string, { labels: Record<string, string>; bucketValues: Record<number, number>; sum: number; count: number }>;
}

export interface RouterMetrics {
  readonly registry: Registry;
  readonly stats: RouterStats;
}

export function createRouterMetrics(stats: RouterStats = new RouterStats()): RouterMetrics {
  const registry = new Registry();
  new Histogram({
    name: 'llmgw_router_request_duration_seconds',
    help: 'Time from a request arriving at the router to the end of its answer, per model.',
    labelNames: ['model'],
    buckets: DURATION_BUCKETS,
    registers: [registry],
    collect() {
      this.reset();
      const entries = (this as unknown as HistogramEntries).hashMap;
      for (const s of stats.models.values()) {
        if (s.count === 0) continue;
        const bucketValues: Record<number, number> = {};
        DURATION_BUCKETS.forEach((bound, i) => (bucketValues[bound] = s.buckets[i] ?? 0));
        entries[`model:${s.model}`] = { labels: { model: s.model }, bucketValues, sum: s.sum, count: s.count };
      }
    },
  });
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
      for (const s of stats.models.values()) if (s.model !== NO_MODEL) this.set({ model: s.model }, s.inflight);
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
