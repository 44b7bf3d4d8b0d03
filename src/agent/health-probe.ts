// One bounded HTTP GET of a replica's health URL.

import { get as httpGet } from 'node:http';
import { get as httpsGet } from 'node:https';

/** Per probe; all of a report's probes run at once, so this bounds the report's wait too. */
export const HEALTH_PROBE_TIMEOUT_MS = 1_000;

export function healthUrl(endpoint: string, health: string): string {
  return endpoint.replace(/\/+$/, '') + (health.startsWith('/') ? health : `/${health}`);
}

/** True only for an HTTP 200 within the timeout; any error, other status or silence is false. */
export function probeHealth(url: string, timeoutMs = HEALTH_PROBE_TIMEOUT_MS): Promise<boolean> {
  return new Promise((resolve) => {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return resolve(false);
    }
    const get = parsed.protocol === 'https:' ? httpsGet : parsed.protocol === 'http:' ? httpGet : null;
    if (!get) return resolve(false);
    // agent: false — no keep-alive socket may outlive the report and hold the agent process open.
    const req = get(parsed, { agent: false, timeout: timeoutMs, headers: { connection: 'close' } }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    const timer = setTimeout(() => req.destroy(), timeoutMs);
    req.on('close', () => clearTimeout(timer));
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}
