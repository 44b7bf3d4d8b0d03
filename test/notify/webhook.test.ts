import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHmac } from 'node:crypto';
import { SIGNATURE_HEADER } from '../../src/notify/webhook.js';
import { deliverOutbox, enqueue, eventId } from '../../src/notify/outbox.js';
import { emptyState, type State } from '../../src/types/state.js';
import type { WebhookConfig } from '../../src/types/config.js';
import type { NotifyEvent } from '../../src/notify/events.js';
import { LOST_EVENT, at } from '../fixtures/index.js';

interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A receiver on 127.0.0.1 that answers each request with the next status (or hangs on 0). */
async function receiver(statuses: number[] = []): Promise<{ url: string; got: Received[]; close: () => Promise<void> }> {
  const got: Received[] = [];
  const hanging: ServerResponse[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      got.push({ path: req.url ?? '', headers: req.headers, body });
      const status = statuses.shift() ?? 200;
      if (status === 0) {
        hanging.push(res);
        return;
      }
      res.writeHead(status).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/T0KEN-in-path`,
    got,
    close: () =>
      new Promise<void>((r) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const lost = LOST_EVENT;
const down: NotifyEvent = { ...lost, event: 'model.down', subject: 'm', text: '[prod-eu] Model m is down.', details: { model: 'm' } };

/** Five seconds into the kit's NOW: deliveries stamped then. */
const NOW = new Date(at(5));

/** One tick's delivery of `events` to `hooks`: the outbox left, and the log. */
async function tickDeliver(
  hooks: WebhookConfig[],
  events: NotifyEvent[],
  o: { state?: State; timeoutMs?: number } = {},
): Promise<{ state: State; lines: string[] }> {
  const lines: string[] = [];
  const state = await deliverOutbox(enqueue(o.state ?? emptyState(), events, hooks), hooks, {
    now: () => NOW,
    log: (l) => lines.push(l),
    timeoutMs: o.timeoutMs,
    backoffMs: 1,
  });
  return { state, lines };
}

test('an event is POSTed as the contract JSON with a text field Slack shows as it is, and leaves the outbox', async () => {
  const rx = await receiver();
  try {
    const r = await tickDeliver([{ url: rx.url }], [lost]);
    assert.equal([r.state.outbox, r.lines], [[], []]);
    assert.is(rx.got.length, 1);
    assert.is(rx.got[0]!.path, '/hooks/T0KEN-in-path');
    assert.is(rx.got[0]!.headers['content-type'], 'application/json');
    const body = JSON.parse(rx.got[0]!.body);
    assert.equal(body, lost);
    assert.equal(Object.keys(body), ['event', 'cluster', 'time', 'subject', 'text', 'details'], "the contract's fields, in its order");
    assert.is(rx.got[0]!.headers[SIGNATURE_HEADER.toLowerCase()], undefined, 'no secret, no signature');
    assert.is(rx.got[0]!.headers['webhook-signature'], undefined);
    assert.is(rx.got[0]!.headers['webhook-id'], eventId(lost));
    assert.match(eventId(lost), /^evt_[0-9a-f]{24}$/);
    assert.is(rx.got[0]!.headers['webhook-timestamp'], String(NOW.getTime() / 1000));
  } finally {
    await rx.close();
  }
});

test('with a secret: X-Llmgw-Signature-256 is the HMAC of the body, webhook-signature the Standard Webhooks one of id.timestamp.body', async () => {
  const rx = await receiver([200, 200]);
  try {
    await tickDeliver([{ url: rx.url, secret: 's3cret' }], [lost]);
    const { body, headers } = rx.got[0]!;
    assert.is(headers['x-llmgw-signature-256'], 'sha256=' + createHmac('sha256', 's3cret').update(body).digest('hex'));
    const signed = `${String(headers['webhook-id'])}.${String(headers['webhook-timestamp'])}.${body}`;
    assert.is(headers['webhook-signature'], 'v1,' + createHmac('sha256', 's3cret').update(signed).digest('base64'));
    // A whsec_ secret (as Standard Webhooks libraries make them) is the base64 of the key.
    const key = Buffer.from('a key of random bytes');
    await tickDeliver([{ url: rx.url, secret: 'whsec_' + key.toString('base64') }], [down]);
    const two = rx.got[1]!;
    assert.is(
      two.headers['webhook-signature'],
      'v1,' +
        createHmac('sha256', key)
          .update(`${String(two.headers['webhook-id'])}.${String(two.headers['webhook-timestamp'])}.${two.body}`)
          .digest('base64'),
    );
  } finally {
    await rx.close();
  }
});

test('the configured headers are sent with every POST', async () => {
  const rx = await receiver();
  try {
    await tickDeliver([{ url: rx.url, headers: { Authorization: 'Bearer tok', 'X-Fleet': 'prod-eu' } }], [lost]);
    assert.is(rx.got[0]!.headers.authorization, 'Bearer tok');
    assert.is(rx.got[0]!.headers['x-fleet'], 'prod-eu');
  } finally {
    await rx.close();
  }
});

test('a 500 is retried once in the tick; a second one leaves the event owed, with one line naming neither URL nor secret', async () => {
  const rx = await receiver([500, 503, 200]);
  try {
    const r = await tickDeliver([{ url: rx.url, secret: 'topsecret' }], [lost]);
    assert.is(rx.got.length, 2);
    assert.equal(
      r.state.outbox.map((o) => o.id),
      [eventId(lost)],
    );
    assert.equal(r.lines, [`notify: webhook 1: node.lost gpu-a02 (${eventId(lost)}) not delivered: HTTP 503; sent again next tick`]);
    // The next tick sends the same id.
    const next = await deliverOutbox(r.state, [{ url: rx.url, secret: 'topsecret' }], { now: () => NOW, log: () => undefined });
    assert.equal(next.outbox, []);
    assert.equal(
      rx.got.map((g) => g.headers['webhook-id']),
      [eventId(lost), eventId(lost), eventId(lost)],
    );
  } finally {
    await rx.close();
  }
});

test('a 4xx or a redirect is final for that hook: not retried, not owed again', async () => {
  for (const status of [400, 404, 301, 307]) {
    const rx = await receiver([status]);
    try {
      const r = await tickDeliver([{ url: rx.url }], [lost]);
      assert.is(rx.got.length, 1);
      assert.equal(r.state.outbox, []);
      assert.match(r.lines[0]!, /refused: HTTP \d+.*; not sent to this hook again$/);
    } finally {
      await rx.close();
    }
  }
});

test('a receiver slower than the timeout gets the event once in a tick, and is owed it (same id) after', async () => {
  const rx = await receiver([0, 0, 0, 0]);
  try {
    const r = await tickDeliver([{ url: rx.url, secret: 'topsecret' }], [lost, down], { timeoutMs: 100 });
    assert.is(rx.got.length, 1, 'one attempt, and the hook is left alone for the rest of the tick');
    assert.equal(
      r.state.outbox.map((o) => o.id),
      [eventId(lost), eventId(down)],
    );
    assert.equal(r.lines, [`notify: webhook 1: node.lost gpu-a02 (${eventId(lost)}) not delivered: no answer within 100 ms; sent again next tick`]);
  } finally {
    await rx.close();
  }
});

test('a receiver that is not there is tried twice and keeps its events; the log holds its error code, no URL', async () => {
  const rx = await receiver();
  const url = rx.url;
  await rx.close();
  const r = await tickDeliver([{ url, secret: 'topsecret' }], [lost]);
  assert.equal(r.lines, [`notify: webhook 1: node.lost gpu-a02 (${eventId(lost)}) not delivered: ECONNREFUSED; sent again next tick`]);
  assert.is(r.state.outbox.length, 1);
  for (const l of r.lines) {
    assert.not.match(l, 'T0KEN');
    assert.not.match(l, 'topsecret');
  }
});

test('one hook failing (400, 500, silence) never affects another: each is owed only what it did not take', async () => {
  const ok = await receiver();
  const refusing = await receiver([400, 400]);
  const failing = await receiver([500, 500, 500, 500]);
  const silent = await receiver([0, 0]);
  try {
    // 1.5 s: the silent hook must time out, the others must answer within it on a loaded CI machine (100 ms did not).
    const hooks = [{ url: refusing.url }, { url: failing.url }, { url: silent.url }, { url: ok.url }];
    const r = await tickDeliver(hooks, [lost, down], { timeoutMs: 1500 });
    assert.equal(
      ok.got.map((g) => JSON.parse(g.body).event),
      ['node.lost', 'model.down'],
    );
    assert.is(refusing.got.length, 2);
    const owed = r.state.outbox.map((o) => o.hooks.length);
    assert.equal(owed, [2, 2], 'each event still owed to the 500 and the silent hook, and to nobody else');
  } finally {
    for (const x of [ok, refusing, failing, silent]) await x.close();
  }
});

test('each hook gets only the events it lists; a hook without a list gets them all', async () => {
  const all = await receiver();
  const some = await receiver();
  try {
    await tickDeliver([{ url: all.url }, { url: some.url, events: ['model.down'] }], [lost, down]);
    assert.equal(all.got.map((g) => JSON.parse(g.body).event).sort(), ['model.down', 'node.lost']);
    assert.equal(
      some.got.map((g) => JSON.parse(g.body).event),
      ['model.down'],
    );
  } finally {
    await all.close();
    await some.close();
  }
});

test('a hook no longer configured, or an event older than a day, is dropped with a line', async () => {
  const rx = await receiver();
  try {
    const queued = enqueue(emptyState(), [lost], [{ url: 'http://gone.example/hook' }]);
    const lines: string[] = [];
    const left = await deliverOutbox(queued, [{ url: rx.url }], { now: () => NOW, log: (l) => lines.push(l) });
    assert.equal(left.outbox, []);
    assert.equal(lines, ['notify: 1 event(s) were owed to a webhook that is no longer configured: dropped for it']);
    const old = enqueue(emptyState(), [lost], [{ url: rx.url }]);
    const later = await deliverOutbox(old, [{ url: rx.url }], { now: () => new Date('2026-11-30T09:00:00Z'), log: (l) => lines.push(l) });
    assert.equal([later.outbox, rx.got.length], [[], 0]);
  } finally {
    await rx.close();
  }
});

test.run();
