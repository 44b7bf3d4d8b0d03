// One bounded GET of a replica's Prometheus metrics (docs/protocol.md#engine-progress).
// Bounded in time (one timer for headers and body: an engine that trickles is
// cut) and in bytes (vLLM's page with its histograms is some 100 KiB; a page past
// the cap is not read further). Never throws: every outcome is a value.

import { get as httpGet, type IncomingMessage } from 'node:http';
import { get as httpsGet } from 'node:https';
import { healthUrl } from './health-probe.js';

/** Runs beside the health probe and the answer check, so it adds nothing to a report's bound. */
export const METRICS_TIMEOUT_MS = 2_000;
export const MAX_METRICS_BYTES = 4 * 1024 * 1024;

/** `none`: the engine has no such page (404), which an engine that is not vLLM may well not: no load, and nothing to warn about. */
export type MetricsOutcome = { kind: 'text'; text: string } | { kind: 'none' } | { kind: 'problem'; detail: string };

export function fetchMetrics(endpoint: string, path: string, timeoutMs = METRICS_TIMEOUT_MS): Promise<MetricsOutcome> {
  return new Promise((resolve) => {
    let parsed: URL;
    try {
      parsed = new URL(healthUrl(endpoint, path));
    } catch {
      return resolve({ kind: 'problem', detail: 'not a URL' });
    }
    const get = parsed.protocol === 'https:' ? httpsGet : parsed.protocol === 'http:' ? httpGet : null;
    if (!get) return resolve({ kind: 'problem', detail: `unsupported protocol ${parsed.protocol}` });
    let settled = false;
    const done = (o: MetricsOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(o);
      req.destroy();
    };
    // agent: false — no keep-alive socket may outlive the report and hold the agent process open.
    const req = get(parsed, { agent: false, headers: { connection: 'close', accept: 'text/plain' } }, (res: IncomingMessage) => {
      if (res.statusCode === 404) return done({ kind: 'none' });
      if (res.statusCode !== 200) return done({ kind: 'problem', detail: `HTTP ${String(res.statusCode)}` });
      const chunks: Buffer[] = [];
      let bytes = 0;
      res.on('data', (c: Buffer) => {
        bytes += c.length;
        if (bytes > MAX_METRICS_BYTES) return done({ kind: 'problem', detail: `a page larger than ${MAX_METRICS_BYTES / 1024 / 1024} MiB` });
        chunks.push(c);
      });
      res.on('end', () => done({ kind: 'text', text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', () => done({ kind: 'problem', detail: 'connection lost' }));
    });
    const timer = setTimeout(() => done({ kind: 'problem', detail: `no answer within ${timeoutMs / 1000} s` }), timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) => done({ kind: 'problem', detail: `cannot connect (${err.code ?? 'error'})` }));
  });
}
