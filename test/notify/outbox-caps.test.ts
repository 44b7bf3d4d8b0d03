// The outbox's rules (src/notify/outbox.ts) at their edges: what enqueue
// keeps (an event no hook wants is not kept, one already owed is not added
// twice, hooks sorted), the caps deliverOutbox drops by (older than a day,
// beyond OUTBOX_MAX_ENTRIES, with the count in one line), the per-tick send
// cap, a 5xx does not hold the hook's next events, the default backoff, hook
// keys and event ids. Real receivers on 127.0.0.1; a down hook is a closed port.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { closedPort, receiver, statuses } from './http-receiver.js';
import { deliverOutbox, enqueue, eventId, hookKey, OUTBOX_MAX_AGE_MS, OUTBOX_MAX_ENTRIES } from '../../src/notify/outbox.js';
import type { NotifyEvent } from '../../src/notify/events.js';
import { processOutboxKey, sealEntry } from '../../src/notify/outbox-mac.js';
import { emptyState, type OutboxEntry, type State } from '../../src/types/state.js';
import { at } from '../fixtures/now.js';

const NOW = new Date(at(4 * 3600));

function ev(subject: string, time: string = NOW.toISOString()): NotifyEvent {
  return { event: 'node.lost', cluster: 'prod-eu', time, subject, text: `[prod-eu] Node ${subject} is lost.`, details: { node: subject } };
}
/** An entry as this process queues it: sealed with its own key (what deliverOutbox verifies by default). */
function entry(e: NotifyEvent, hooks: string[]): OutboxEntry {
  return sealEntry(processOutboxKey(), { id: eventId(e), event: e, hooks });
}
function withOutbox(outbox: OutboxEntry[]): State {
  return { ...emptyState(), outbox };
}
async function downHook() {
  return { url: `http://127.0.0.1:${await closedPort()}/hook` };
}

// --- enqueue ---

test('an event no hook wants is not kept: the state comes back as it was', () => {
  const state = emptyState();
  const r = enqueue(state, [ev('gpu-a01')], [{ url: 'http://127.0.0.1:1/a', events: ['model.down'] }]);
  assert.is(r, state);
  assert.equal(r.outbox, []);
});

test('an event is owed only to the hooks that want it', () => {
  const all = { url: 'http://127.0.0.1:1/all' };
  const models = { url: 'http://127.0.0.1:1/models', events: ['model.down' as const] };
  const r = enqueue(emptyState(), [ev('gpu-a01')], [all, models]);
  assert.equal(r.outbox, [entry(ev('gpu-a01'), [hookKey(all)])]);
});

test('an event already in the outbox is not added again, and nothing added returns the same state', () => {
  const hooks = [{ url: 'http://127.0.0.1:1/a' }];
  const once = enqueue(emptyState(), [ev('gpu-a01')], hooks);
  assert.is(once.outbox.length, 1);
  const twice = enqueue(once, [ev('gpu-a01')], hooks);
  assert.is(twice, once);
  assert.is(enqueue(once, [], hooks), once, 'no events: the very same state (nothing to save)');
});

test('an entry lists its hooks sorted by key, whatever the configured order, and the same URL twice once', () => {
  const a = { url: 'http://127.0.0.1:1/a' };
  const b = { url: 'http://127.0.0.1:1/b' };
  const sorted = [hookKey(a), hookKey(b)].sort();
  assert.equal(enqueue(emptyState(), [ev('n1')], [a, b]).outbox[0]!.hooks, sorted);
  assert.equal(enqueue(emptyState(), [ev('n1')], [b, a]).outbox[0]!.hooks, sorted);
  assert.equal(enqueue(emptyState(), [ev('n1')], [a, { ...a }]).outbox[0]!.hooks, [hookKey(a)]);
});

test('a hook key is 16 hex characters of a hash of the URL: the same URL the same key, another URL another', () => {
  const k = hookKey({ url: 'https://hooks.example.com/T0/secret-token' });
  assert.match(k, /^[0-9a-f]{16}$/);
  assert.is(k, createHash('sha256').update('llmgw-webhook\0https://hooks.example.com/T0/secret-token').digest('hex').slice(0, 16));
  assert.is.not(hookKey({ url: 'https://hooks.example.com/T0/other' }), k);
});

test('an event id is evt_ and 24 hex characters, and fields are kept apart: characters moved from time to subject make another id', () => {
  const a = ev('n1', '2026-11-29T08:00:00Z');
  const b = ev('n12', '026-11-29T08:00:00Z');
  assert.match(eventId(a), /^evt_[0-9a-f]{24}$/);
  assert.is(eventId(a), eventId({ ...a, text: 'other text', details: {} }), 'text and details do not change the id');
  assert.is.not(eventId(a), eventId(b));
});

// --- deliverOutbox: caps ---

test('an event exactly a day old is kept (only older ones are dropped); one a millisecond older is dropped with a line', async () => {
  const hook = await downHook();
  const k = hookKey(hook);
  const day = ev('n1', new Date(NOW.getTime() - OUTBOX_MAX_AGE_MS).toISOString());
  const older = ev('n2', new Date(NOW.getTime() - OUTBOX_MAX_AGE_MS - 1).toISOString());
  const lines: string[] = [];
  const r = await deliverOutbox(withOutbox([entry(older, [k]), entry(day, [k])]), [hook], { now: () => NOW, log: (l) => lines.push(l), backoffMs: 0 });
  assert.equal(r.outbox, [entry(day, [k])]);
  assert.is(lines[0], `notify: dropped 1 event(s) no hook took within a day or beyond the last ${OUTBOX_MAX_ENTRIES}`);
});

function fresh(n: number, from = 0): NotifyEvent[] {
  // Oldest first, each a second after the one before, all within the last hour.
  return Array.from({ length: n }, (_, i) => ev(`n${from + i}`, new Date(NOW.getTime() - 3600_000 + (from + i) * 1000).toISOString()));
}

test('more than OUTBOX_MAX_ENTRIES owed: the oldest beyond the cap are dropped, the count in the line', async () => {
  const hook = await downHook();
  const k = hookKey(hook);
  const events = fresh(OUTBOX_MAX_ENTRIES + 2);
  const lines: string[] = [];
  const r = await deliverOutbox(withOutbox(events.map((e) => entry(e, [k]))), [hook], { now: () => NOW, log: (l) => lines.push(l), backoffMs: 0 });
  assert.is(r.outbox.length, OUTBOX_MAX_ENTRIES);
  assert.equal(r.outbox[0], entry(events[2]!, [k]));
  assert.equal(r.outbox.at(-1), entry(events.at(-1)!, [k]));
  assert.is(lines[0], `notify: dropped 2 event(s) no hook took within a day or beyond the last ${OUTBOX_MAX_ENTRIES}`);
});

test('stale and beyond the cap together: the cap counts only what is not stale, and the line counts both', async () => {
  const hook = await downHook();
  const k = hookKey(hook);
  const stale = [ev('old1', '2026-11-27T00:00:00Z'), ev('old2', '2026-11-27T00:00:01Z')];
  const events = fresh(OUTBOX_MAX_ENTRIES + 1);
  const lines: string[] = [];
  const state = withOutbox([...stale, ...events].map((e) => entry(e, [k])));
  const r = await deliverOutbox(state, [hook], { now: () => NOW, log: (l) => lines.push(l), backoffMs: 0 });
  assert.equal(
    r.outbox.map((o) => o.event.subject),
    events.slice(1).map((e) => e.subject),
  );
  assert.is(lines[0], `notify: dropped 3 event(s) no hook took within a day or beyond the last ${OUTBOX_MAX_ENTRIES}`);
});

test('an event owed to a hook no longer configured is counted once in the line, whatever other hooks it is owed to', async () => {
  const hook = await downHook();
  const k = hookKey(hook);
  const gone = hookKey({ url: 'http://127.0.0.1:1/gone' });
  const lines: string[] = [];
  const e1 = ev('n1');
  const e2 = ev('n2');
  const r = await deliverOutbox(withOutbox([entry(e1, [k, gone].sort()), entry(e2, [k])]), [hook], { now: () => NOW, log: (l) => lines.push(l), backoffMs: 0 });
  assert.is(lines[0], 'notify: 1 event(s) were owed to a webhook that is no longer configured: dropped for it');
  assert.equal(r.outbox, [entry(e1, [k]), entry(e2, [k])]);
});

// --- deliverOutbox: what is sent ---

test('a hook is sent at most 200 events in one tick: the 201st waits for the next', async () => {
  const rx = await receiver();
  try {
    const hook = { url: rx.url };
    const k = hookKey(hook);
    const events = fresh(201);
    const r = await deliverOutbox(withOutbox(events.map((e) => entry(e, [k]))), [hook], { now: () => NOW, log: () => undefined, backoffMs: 0 });
    assert.is(rx.hits.length, 200);
    assert.equal(r.outbox, [entry(events[200]!, [k])]);
  } finally {
    await rx.close();
  }
});

test('a 5xx (the receiver may have it) does not hold the hook: its next events are still sent in the same tick', async () => {
  const rx = await receiver(statuses(500, 500));
  try {
    const hook = { url: rx.url };
    const k = hookKey(hook);
    const [e1, e2] = fresh(2);
    const lines: string[] = [];
    const r = await deliverOutbox(withOutbox([entry(e1!, [k]), entry(e2!, [k])]), [hook], { now: () => NOW, log: (l) => lines.push(l), backoffMs: 0 });
    assert.is(rx.hits.length, 3, 'the first event twice (one retry), then the second');
    assert.equal(r.outbox, [entry(e1!, [k])]);
    assert.equal(lines, [`notify: webhook 1: node.lost ${e1!.subject} (${eventId(e1!)}) not delivered: HTTP 500; sent again next tick`]);
  } finally {
    await rx.close();
  }
});

test('a hook that takes an event while another is down: the outbox keeps the event for the down hook only, and the same length is still a new state', async () => {
  const rx = await receiver();
  try {
    const up = { url: rx.url };
    const down = await downHook();
    const ku = hookKey(up);
    const kd = hookKey(down);
    const [a, b] = fresh(2);
    const state = withOutbox([entry(a!, [kd]), entry(b!, [ku, kd].sort())]);
    const r = await deliverOutbox(state, [up, down], { now: () => NOW, log: () => undefined, backoffMs: 0 });
    assert.equal(r.outbox, [entry(a!, [kd]), entry(b!, [kd])]);
    assert.is(rx.hits.length, 1);
  } finally {
    await rx.close();
  }
});

test('nothing taken, nothing dropped: deliverOutbox returns the very same state (nothing to save)', async () => {
  const hook = await downHook();
  const k = hookKey(hook);
  const state = withOutbox(fresh(3).map((e) => entry(e, [k])));
  const r = await deliverOutbox(state, [hook], { now: () => NOW, log: () => undefined, backoffMs: 0 });
  assert.is(r, state);
});

test('the default backoff before the one retry is 500 ms, as the receiver sees it', async () => {
  const rx = await receiver(statuses(503));
  try {
    const hook = { url: rx.url };
    const r = await deliverOutbox(withOutbox([entry(ev('n1'), [hookKey(hook)])]), [hook], { now: () => NOW, log: () => undefined });
    assert.equal(r.outbox, []);
    assert.is(rx.hits.length, 2);
    const gap = rx.hits[1]!.at - rx.hits[0]!.at;
    assert.ok(gap >= 450, `retried after ${gap.toFixed(0)} ms`);
  } finally {
    await rx.close();
  }
});

test.run();
