// Webhooks, at least once per hook, with one id per event (docs/notifications.md).
//
// Exactly-once over HTTP does not exist: a receiver may take an event and its
// answer be lost (a timeout, a crash of ours before we record it). So an
// event gets an id when it is detected, is committed in state.json's outbox
// with the hooks that still owe it, and is only then sent — to each hook on
// its own. A 2xx, or a refusal that asking again will not change (a 4xx, a
// redirect), takes that hook off the entry; anything else leaves it for the
// next tick. Every attempt of an event, across ticks and restarts, carries the
// same `webhook-id`, so a receiver drops repeats by it.
//
// The outbox lives in a file anyone who can push to the repo can edit, so
// each entry carries a MAC (src/notify/outbox-mac.ts) and one that does not
// verify is dropped unsent: a forged event, or a real one whose hooks were
// changed, reaches no receiver with llmgw's signature on it.

import { createHash } from 'node:crypto';
import type { WebhookConfig } from '../types/config.js';
import type { NotifyEvent, OutboxEntry, State } from '../types/state.js';
import { crashPoint } from '../util/crash-point.js';
import { processOutboxKey, sealEntry, unverified, type OutboxKey } from './outbox-mac.js';
import { hookName, postEvent, type PostResult } from './webhook.js';

/** Entries older than this are dropped (with a line): a hook down for a day is an outage, not a backlog. */
export const OUTBOX_MAX_AGE_MS = 24 * 3600_000;
/** At most this many entries are kept, oldest dropped first. */
export const OUTBOX_MAX_ENTRIES = 1000;

/**
 * A hook's key in state.json: a hash of its URL, never the URL (it often
 * embeds a token). The same URL is the same hook across ticks and restarts;
 * a hook whose URL changed is a new hook.
 */
export function hookKey(hook: WebhookConfig): string {
  return createHash('sha256').update(`llmgw-webhook\0${hook.url}`).digest('hex').slice(0, 16);
}

/** An event's id: fixed by what it is and when it was detected, the same on every attempt. */
export function eventId(e: NotifyEvent): string {
  return 'evt_' + createHash('sha256').update([e.cluster, e.event, e.subject, e.time].join('\0')).digest('hex').slice(0, 24);
}

function wants(hook: WebhookConfig, e: NotifyEvent): boolean {
  return hook.events === undefined || hook.events.includes(e.event);
}

/**
 * The state with these events owed to every hook that wants them (an event no
 * hook wants is not kept), each entry sealed with `key`. Only an entry that
 * verifies counts as already queued: a forged entry under a real event's id
 * cannot keep the real one out.
 */
export function enqueue(state: State, events: NotifyEvent[], webhooks: readonly WebhookConfig[], key: OutboxKey = processOutboxKey()): State {
  const added: OutboxEntry[] = [];
  const known = new Set(state.outbox.filter((o) => unverified(key, o) === null).map((o) => o.id));
  for (const e of events) {
    const id = eventId(e);
    const hooks = [...new Set(webhooks.filter((h) => wants(h, e)).map(hookKey))].sort();
    if (hooks.length === 0 || known.has(id)) continue;
    known.add(id);
    added.push(sealEntry(key, { id, event: e, hooks }));
  }
  return added.length === 0 ? state : { ...state, outbox: [...state.outbox, ...added] };
}

export interface DeliverOptions {
  /** Per attempt (default 5000). */
  timeoutMs?: number;
  /** Wait before the one retry an unanswered-for-sure attempt gets in a tick (default 500). */
  backoffMs?: number;
  now: () => Date;
  log: (line: string) => void;
  /** What entries must verify under (default: this process's own key, so only what it queued is sent). */
  key?: OutboxKey;
}

/**
 * Retry within one tick only what surely did not reach the receiver (no
 * connection) or what it asked to have again (a 5xx, 408, 429) — once. A
 * receiver slower than the timeout gets an event once per tick, not four times.
 */
async function attempt(hook: WebhookConfig, entry: OutboxEntry, opts: DeliverOptions): Promise<PostResult> {
  const timeoutMs = opts.timeoutMs ?? 5000;
  const post = () => postEvent(hook, entry.id, entry.event, { timeoutMs, nowSeconds: Math.floor(opts.now().getTime() / 1000) });
  const first = await post();
  if (first.outcome !== 'again' || first.timedOut) return first;
  await new Promise((r) => setTimeout(r, opts.backoffMs ?? 500));
  return post();
}

/** Events one hook is sent in one tick, at most: a tick is never held by a backlog. */
const PER_TICK = 200;

/** One hook's share of the outbox, in order; it stops at the first event the hook did not answer (it is down: the rest wait for the next tick). */
async function deliverTo(hook: WebhookConfig, index: number, key: string, outbox: OutboxEntry[], done: Set<string>, opts: DeliverOptions): Promise<void> {
  let sent = 0;
  for (const entry of outbox) {
    if (!entry.hooks.includes(key)) continue;
    if (sent++ >= PER_TICK) return;
    const r = await attempt(hook, entry, opts);
    const what = `${hookName(hook, index)}: ${entry.event.event} ${entry.event.subject} (${entry.id})`;
    if (r.outcome === 'taken') {
      crashPoint('notify');
      done.add(`${entry.id}/${key}`);
      continue;
    }
    if (r.outcome === 'final') {
      done.add(`${entry.id}/${key}`);
      opts.log(`${what} refused: ${r.why}; not sent to this hook again`);
      continue;
    }
    opts.log(`${what} not delivered: ${r.why}; sent again next tick`);
    // Silent or unreachable: the hook is down, its other events wait too.
    if (r.timedOut || !r.sent) return;
  }
}

/** At most this many drop lines a tick; the rest are counted in one more line. */
const MAX_DROP_LINES = 100;

function whyUntrusted(why: 'no-mac' | 'bad-mac', key: OutboxKey): string {
  const what =
    why === 'no-mac'
      ? 'it carries no MAC (queued by an older llmgw, or not by llmgw at all)'
      : 'its MAC does not verify (written or changed by someone without the outbox key)';
  return key.source === 'process' ? `${what}; with neither LLMGW_OUTBOX_KEY nor a readable ssh.identityFile only what this process queued is sent` : what;
}

/** The entries whose MAC verifies under `key`, in order; a warning line (naming the id, never a field of the entry) for each other one. */
function trustedEntries(outbox: OutboxEntry[], key: OutboxKey, log: (line: string) => void): OutboxEntry[] {
  const kept: OutboxEntry[] = [];
  let dropped = 0;
  for (const o of outbox) {
    const why = unverified(key, o);
    if (why === null) {
      kept.push(o);
      continue;
    }
    // The id is checked by state.json's schema (evt_ and hex): safe to print, and what a person greps for.
    if (dropped++ < MAX_DROP_LINES) log(`warning: notify: dropped event ${o.id} from the outbox unsent: ${whyUntrusted(why, key)}`);
  }
  if (dropped > MAX_DROP_LINES) log(`warning: notify: dropped ${dropped - MAX_DROP_LINES} more untrusted outbox entries unsent`);
  return kept;
}

/**
 * Send what the outbox owes, each hook on its own (one hook's failure never
 * holds another's events), and return the outbox that is left. Hooks no
 * longer configured, entries older than a day and entries beyond the cap are
 * dropped with a line; so, first, is every entry whose MAC does not verify.
 * What is left is sealed again (its hooks may have changed).
 */
export async function deliverOutbox(state: State, webhooks: readonly WebhookConfig[], opts: DeliverOptions): Promise<State> {
  const key = opts.key ?? processOutboxKey();
  const keys = webhooks.map(hookKey);
  const configured = new Set(keys);
  const nowMs = opts.now().getTime();
  let outbox = trustedEntries(state.outbox, key, opts.log);
  const stale = outbox.filter((o) => nowMs - Date.parse(o.event.time) > OUTBOX_MAX_AGE_MS);
  const over = Math.max(0, outbox.length - stale.length - OUTBOX_MAX_ENTRIES);
  if (stale.length > 0 || over > 0) {
    opts.log(`notify: dropped ${stale.length + over} event(s) no hook took within a day or beyond the last ${OUTBOX_MAX_ENTRIES}`);
    outbox = outbox.filter((o) => !stale.includes(o)).slice(over);
  }
  const orphaned = outbox.filter((o) => o.hooks.some((k) => !configured.has(k))).length;
  if (orphaned > 0) opts.log(`notify: ${orphaned} event(s) were owed to a webhook that is no longer configured: dropped for it`);
  outbox = outbox.map((o) => ({ ...o, hooks: o.hooks.filter((k) => configured.has(k)) }));

  const done = new Set<string>();
  const log = (line: string) => opts.log(`notify: ${line}`);
  // The same URL twice is one hook: it gets each event once.
  const first = new Map<string, number>();
  keys.forEach((k, i) => first.has(k) || first.set(k, i));
  await Promise.all(
    [...first].flatMap(([key, i]) => {
      const hook = webhooks[i];
      return hook === undefined ? [] : [deliverTo(hook, i, key, outbox, done, { ...opts, log })];
    }),
  );
  outbox = outbox.map((o) => ({ ...o, hooks: o.hooks.filter((k) => !done.has(`${o.id}/${k}`)) })).filter((o) => o.hooks.length > 0);
  const same = outbox.length === state.outbox.length && outbox.every((o, i) => o.id === state.outbox[i]?.id && o.hooks.length === state.outbox[i].hooks.length);
  return same ? state : { ...state, outbox: outbox.map((o) => sealEntry(key, o)) };
}
