// Delivering events to webhooks (docs/notifications.md): POST of the event's JSON, a
// timeout, bounded retries with exponential backoff, an HMAC signature when the
// hook has a secret. A hook's URL often embeds a token, so neither it nor the
// secret ever reaches a log line: a hook is named `webhook #N (host)`.

import { createHmac } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { WebhookConfig } from '../types/config.js';
import type { NotifyEvent } from './events.js';

export const SIGNATURE_HEADER = 'X-Llmgw-Signature-256';

export interface DeliverOptions {
  /** Per attempt (default 5000). */
  timeoutMs?: number;
  /** Attempts after the first (default 2, so 3 tries in all). */
  retries?: number;
  /** Wait before the first retry, doubled for each one after (default 500). */
  backoffMs?: number;
  log?: (line: string) => void;
}

/** `sha256=<hex>` of the exact body bytes, as a receiver recomputes it. */
export function signature(secret: string, body: string): string {
  return 'sha256=' + createHmac('sha256', secret).update(body, 'utf8').digest('hex');
}

/** The body of a POST: exactly the contract's fields, in its order. */
export function eventBody(e: NotifyEvent): string {
  return JSON.stringify({ event: e.event, cluster: e.cluster, time: e.time, subject: e.subject, text: e.text, details: e.details });
}

function hookName(hook: WebhookConfig, index: number): string {
  let host = '';
  try {
    host = new URL(hook.url).hostname;
  } catch {
    host = 'invalid URL';
  }
  return `webhook #${index + 1} (${host})`;
}

type Attempt = { ok: true } | { ok: false; why: string; retry: boolean };

async function post(hook: WebhookConfig, body: string, timeoutMs: number): Promise<Attempt> {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': 'llmgw' };
  if (hook.secret) headers[SIGNATURE_HEADER] = signature(hook.secret, body);
  try {
    const res = await fetch(hook.url, { method: 'POST', headers, body, signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
    await res.arrayBuffer().catch(() => undefined);
    if (res.ok) return { ok: true };
    // Not ok and below 400 is a redirect: never followed (the signed body would go
    // where the receiver says) and final, as asking again gets the same redirect.
    // (redirect: 'error' would make it a network error, and retried.)
    if (res.status < 400) return { ok: false, why: `HTTP ${res.status} (redirects are not followed)`, retry: false };
    // A 4xx other than 408/429 is the receiver saying no: asking again will not change its mind.
    const retry = res.status >= 500 || res.status === 408 || res.status === 429;
    return { ok: false, why: `HTTP ${res.status}`, retry };
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } };
    if (e.name === 'TimeoutError' || e.name === 'AbortError') return { ok: false, why: `no answer within ${timeoutMs} ms`, retry: true };
    // Never the error's message: fetch puts the URL into some of them.
    return { ok: false, why: e.cause?.code ?? 'request failed', retry: true };
  }
}

/**
 * Deliver each event to each hook that wants it; never throws. Counts are per
 * (hook, event). `undelivered` lists the events no hook took and that are worth
 * sending again later (every failure was a timeout, a network error, a 5xx, 408
 * or 429, not a receiver's refusal).
 */
export async function deliver(
  webhooks: WebhookConfig[],
  events: NotifyEvent[],
  opts: DeliverOptions = {},
): Promise<{ ok: number; failed: number; undelivered: NotifyEvent[] }> {
  const timeoutMs = opts.timeoutMs ?? 5000;
  const tries = 1 + Math.max(0, opts.retries ?? 2);
  const backoffMs = opts.backoffMs ?? 500;
  const log = opts.log ?? (() => undefined);
  let ok = 0;
  let failed = 0;
  const taken = new Set<NotifyEvent>();
  const refused = new Set<NotifyEvent>();
  const wanted = new Set<NotifyEvent>();

  async function one(hook: WebhookConfig, index: number, e: NotifyEvent): Promise<void> {
    const body = eventBody(e);
    let last: Attempt = { ok: false, why: 'not tried', retry: true };
    for (let n = 1; n <= tries; n++) {
      if (n > 1) await sleep(backoffMs * 2 ** (n - 2));
      last = await post(hook, body, timeoutMs);
      if (last.ok || !last.retry) break;
    }
    if (last.ok) {
      ok++;
      taken.add(e);
      return;
    }
    failed++;
    if (!last.retry) refused.add(e);
    log(`${hookName(hook, index)}: ${e.event} ${e.subject} not delivered: ${last.why}`);
  }

  const jobs: Promise<void>[] = [];
  webhooks.forEach((hook, index) => {
    for (const e of events) {
      if (hook.events && !hook.events.includes(e.event)) continue;
      wanted.add(e);
      jobs.push(one(hook, index, e));
    }
  });
  await Promise.all(jobs);
  const undelivered = events.filter((e) => wanted.has(e) && !taken.has(e) && !refused.has(e));
  return { ok, failed, undelivered };
}
