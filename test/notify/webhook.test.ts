import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHmac } from 'node:crypto';
import { deliver, SIGNATURE_HEADER } from '../../src/notify/webhook.js';
import type { NotifyEvent } from '../../src/notify/events.js';

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

const lost: NotifyEvent = {
  event: 'node.lost',
  cluster: 'prod-eu',
  time: '2026-11-29T08:00:00Z',
  subject: 'gpu-a02',
  text: '[prod-eu] Node gpu-a02 is lost.',
  details: { node: 'gpu-a02' },
};
const down: NotifyEvent = { ...lost, event: 'model.down', subject: 'm', text: '[prod-eu] Model m is down.', details: { model: 'm' } };

test('an event is POSTed as the contract JSON with a text field Slack shows as it is', async () => {
  const rx = await receiver();
  try {
    const r = await deliver([{ url: rx.url }], [lost]);
    assert.equal(r, { ok: 1, failed: 0, undelivered: [] });
    assert.is(rx.got.length, 1);
    assert.is(rx.got[0]!.path, '/hooks/T0KEN-in-path');
    assert.is(rx.got[0]!.headers['content-type'], 'application/json');
    const body = JSON.parse(rx.got[0]!.body);
    assert.equal(body, lost);
    assert.equal(Object.keys(body), ['event', 'cluster', 'time', 'subject', 'text', 'details'], "the contract's fields, in its order");
    assert.is(rx.got[0]!.headers[SIGNATURE_HEADER.toLowerCase()], undefined, 'no secret, no signature');
  } finally {
    await rx.close();
  }
});

test('with a secret the signature header is the HMAC-SHA256 of the exact body', async () => {
  const rx = await receiver();
  try {
    await deliver([{ url: rx.url, secret: 's3cret' }], [lost]);
    const { body, headers } = rx.got[0]!;
    const expected = 'sha256=' + createHmac('sha256', 's3cret').update(body).digest('hex');
    assert.is(headers['x-llmgw-signature-256'], expected);
  } finally {
    await rx.close();
  }
});

test('a 500 is retried after a backoff and then delivered', async () => {
  const rx = await receiver([500, 503, 200]);
  try {
    const started = Date.now();
    const r = await deliver([{ url: rx.url }], [lost], { backoffMs: 20 });
    assert.equal(r, { ok: 1, failed: 0, undelivered: [] });
    assert.is(rx.got.length, 3);
    assert.ok(Date.now() - started >= 20 + 40, 'exponential backoff: 20 then 40 ms');
  } finally {
    await rx.close();
  }
});

test('retries are bounded: three tries by default, then the delivery is counted failed, logged and kept to send again next tick', async () => {
  const rx = await receiver([500, 500, 500, 500, 500]);
  const lines: string[] = [];
  try {
    const r = await deliver([{ url: rx.url, secret: 'topsecret' }], [lost], { backoffMs: 1, log: (l) => lines.push(l) });
    assert.equal(r, { ok: 0, failed: 1, undelivered: [lost] });
    assert.is(rx.got.length, 3);
    assert.equal(lines, ['webhook #1 (127.0.0.1): node.lost gpu-a02 not delivered: HTTP 500']);
  } finally {
    await rx.close();
  }
});

test('a 4xx refusal is not retried, nor kept to send again next tick', async () => {
  const rx = await receiver([404]);
  try {
    assert.equal(await deliver([{ url: rx.url }], [lost], { backoffMs: 1 }), { ok: 0, failed: 1, undelivered: [] });
    assert.is(rx.got.length, 1);
  } finally {
    await rx.close();
  }
});

test('a hanging receiver times out, and the log names neither URL nor secret', async () => {
  const rx = await receiver([0, 0]);
  const lines: string[] = [];
  try {
    const started = Date.now();
    const r = await deliver([{ url: rx.url, secret: 'topsecret' }], [lost], { timeoutMs: 100, retries: 1, backoffMs: 1, log: (l) => lines.push(l) });
    assert.equal(r, { ok: 0, failed: 1, undelivered: [lost] });
    assert.ok(Date.now() - started < 2000);
    assert.equal(lines, ['webhook #1 (127.0.0.1): node.lost gpu-a02 not delivered: no answer within 100 ms']);
  } finally {
    await rx.close();
  }
});

test('a receiver that is not there fails with its error code and no URL in the log', async () => {
  const rx = await receiver();
  const url = rx.url;
  await rx.close();
  const lines: string[] = [];
  const r = await deliver([{ url, secret: 'topsecret' }], [lost], { retries: 0, log: (l) => lines.push(l) });
  assert.equal(r, { ok: 0, failed: 1, undelivered: [lost] });
  assert.equal(lines, ['webhook #1 (127.0.0.1): node.lost gpu-a02 not delivered: ECONNREFUSED']);
  for (const l of lines) {
    assert.not.match(l, 'T0KEN');
    assert.not.match(l, 'topsecret');
  }
});

test("each hook gets only the events it lists; a hook without a list gets them all", async () => {
  const all = await receiver();
  const some = await receiver();
  try {
    const r = await deliver([{ url: all.url }, { url: some.url, events: ['model.down'] }], [lost, down]);
    assert.equal(r, { ok: 3, failed: 0, undelivered: [] });
    assert.equal(all.got.map((g) => JSON.parse(g.body).event).sort(), ['model.down', 'node.lost']);
    assert.equal(some.got.map((g) => JSON.parse(g.body).event), ['model.down']);
  } finally {
    await all.close();
    await some.close();
  }
});

test.run();
