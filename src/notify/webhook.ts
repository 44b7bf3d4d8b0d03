// One POST of one event to one webhook (docs/notifications.md): the event's
// JSON, the configured headers, the Standard Webhooks headers (webhook-id,
// webhook-timestamp, webhook-signature) and llmgw's own signature when the
// hook has a secret. Redirects are not followed. What happened is a value,
// never an exception, and never carries the URL: a hook's URL often embeds a
// token — in its path, its user:pass, even its host name — so no part of it
// nor the secret reaches a log line: a hook is named by its position and the
// variables its URL came from, `webhook 2 ($SLACK_URL)`. Credentials in the
// URL (`https://user:pass@host/…`) are sent as HTTP Basic auth: fetch refuses
// a URL that carries them.

import { createHmac } from 'node:crypto';
import type { WebhookConfig } from '../types/config.js';
import type { NotifyEvent } from '../types/state.js';

export const SIGNATURE_HEADER = 'X-Llmgw-Signature-256';

/** `sha256=<hex>` of the exact body bytes, as a receiver recomputes it. */
export function signature(secret: string, body: string): string {
  return 'sha256=' + createHmac('sha256', secret).update(body, 'utf8').digest('hex');
}

/**
 * Standard Webhooks' key: a `whsec_<base64>` secret is those bytes (what
 * their libraries generate and expect); any other secret is its UTF-8 bytes.
 */
function standardKey(secret: string): Buffer {
  return secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret, 'utf8');
}

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`. */
export function standardSignature(secret: string, id: string, timestamp: number, body: string): string {
  return 'v1,' + createHmac('sha256', standardKey(secret)).update(`${id}.${timestamp}.${body}`, 'utf8').digest('base64');
}

/** The body of a POST: exactly the contract's fields, in its order. */
export function eventBody(e: NotifyEvent): string {
  return JSON.stringify({ event: e.event, cluster: e.cluster, time: e.time, subject: e.subject, text: e.text, details: e.details });
}

/** `webhook 2 ($SLACK_URL)`, or `webhook 2` for a URL written out in cluster.yaml: never a part of the URL. */
export function hookName(hook: WebhookConfig, index: number): string {
  const vars = hook.urlVars ?? [];
  return `webhook ${index + 1}${vars.length > 0 ? ` (${vars.join(', ')})` : ''}`;
}

function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/**
 * The URL a POST goes to and, when the configured one carries `user:pass@`,
 * the Basic `Authorization` those become (the URL then without them).
 */
export function postTarget(url: string): { url: string; authorization?: string } {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { url };
  }
  if (u.username === '' && u.password === '') return { url };
  const credentials = `${decoded(u.username)}:${decoded(u.password)}`;
  u.username = '';
  u.password = '';
  return { url: u.href, authorization: 'Basic ' + Buffer.from(credentials, 'utf8').toString('base64') };
}

/**
 * `taken`: a 2xx. `final`: the receiver said no (a 4xx other than 408 and
 * 429, or a redirect, which is not followed): asking again will not change
 * that. `again`: worth another try — `sent` says whether the receiver may
 * have got it (a timeout, a 5xx) or surely did not (no connection).
 */
export type PostResult = { outcome: 'taken' } | { outcome: 'final'; why: string } | { outcome: 'again'; why: string; sent: boolean; timedOut: boolean };

export interface PostOptions {
  timeoutMs: number;
  /** Seconds since the epoch, for webhook-timestamp. */
  nowSeconds: number;
}

export function requestHeaders(hook: WebhookConfig, id: string, body: string, nowSeconds: number): Record<string, string> {
  // The configured headers first: llmgw's own cannot be configured (docs/config.md), so none is overridden.
  const headers: Record<string, string> = { ...(hook.headers ?? {}), 'content-type': 'application/json', 'user-agent': 'llmgw' };
  // An Authorization written in `headers` is the explicit one: it wins over credentials in the URL.
  const { authorization } = postTarget(hook.url);
  if (authorization !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'authorization')) headers.authorization = authorization;
  headers['webhook-id'] = id;
  headers['webhook-timestamp'] = String(nowSeconds);
  if (hook.secret) {
    headers[SIGNATURE_HEADER] = signature(hook.secret, body);
    headers['webhook-signature'] = standardSignature(hook.secret, id, nowSeconds, body);
  }
  return headers;
}

/**
 * Whether a network error's code means no connection was made, so the
 * receiver surely did not get the event (refused, no such host, DNS not
 * answering, no route). Any other error (a reset, no code at all) may have
 * reached it.
 */
export function unsentCode(code: string | undefined): boolean {
  return code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH';
}

export async function postEvent(hook: WebhookConfig, id: string, e: NotifyEvent, opts: PostOptions): Promise<PostResult> {
  const body = eventBody(e);
  const headers = requestHeaders(hook, id, body, opts.nowSeconds);
  try {
    const res = await fetch(postTarget(hook.url).url, { method: 'POST', headers, body, signal: AbortSignal.timeout(opts.timeoutMs), redirect: 'manual' });
    // The answer's body is never used, and a receiver streaming one without end must not be buffered
    // (docs/security.md: it took gigabytes within one timeout): dropped unread.
    await res.body?.cancel().catch(() => undefined);
    if (res.status >= 200 && res.status < 300) return { outcome: 'taken' };
    if (res.status >= 300 && res.status < 400) return { outcome: 'final', why: `HTTP ${res.status} (a redirect, not followed)` };
    // A 4xx other than 408/429 is the receiver saying no: asking again will not change its mind.
    if (res.status >= 500 || res.status === 408 || res.status === 429) return { outcome: 'again', why: `HTTP ${res.status}`, sent: true, timedOut: false };
    return { outcome: 'final', why: `HTTP ${res.status}` };
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } };
    if (e.name === 'TimeoutError' || e.name === 'AbortError')
      return { outcome: 'again', why: `no answer within ${opts.timeoutMs} ms`, sent: true, timedOut: true };
    const code = e.cause?.code;
    // Never the error's message: fetch puts the URL into some of them.
    return { outcome: 'again', why: code ?? 'request failed', sent: !unsentCode(code), timedOut: false };
  }
}
