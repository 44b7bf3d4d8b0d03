// What postEvent (src/notify/webhook.ts) says when no answer came: whether
// the receiver surely did not get the event (`sent: false`: no connection
// was made) or may have (`sent: true`), and the line's cause. Real targets
// where they can be made on this machine: a closed port on 127.0.0.1
// (ECONNREFUSED), a `.invalid` host name (never resolves: ENOTFOUND, or
// EAI_AGAIN where DNS does not answer), a receiver that never answers, a URL
// fetch refuses before connecting. The codes loopback cannot produce
// (EHOSTUNREACH, ENETUNREACH) are held on unsentCode, the classification
// postEvent uses. Also the two signatures' prefixes.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHmac } from 'node:crypto';
import { closedPort, receiver } from './http-receiver.js';
import { postEvent, signature, standardSignature, unsentCode } from '../../src/notify/webhook.js';
import { LOST_EVENT } from '../fixtures/index.js';

const lost = LOST_EVENT;
const opts = { timeoutMs: 5000, nowSeconds: 1_796_000_000 };

test('a refused connection (a closed port on 127.0.0.1) is surely not sent: again, ECONNREFUSED, sent false', async () => {
  const port = await closedPort();
  assert.equal(await postEvent({ url: `http://127.0.0.1:${port}/hook` }, 'evt-1', lost, opts), {
    outcome: 'again',
    why: 'ECONNREFUSED',
    sent: false,
    timedOut: false,
  });
});

test('a host name that does not resolve (nonexistent.invalid) is surely not sent: again, ENOTFOUND (or EAI_AGAIN), sent false', async () => {
  const r = await postEvent({ url: 'http://nonexistent.invalid/hook' }, 'evt-1', lost, opts);
  assert.ok(r.outcome === 'again', `outcome ${r.outcome}`);
  assert.ok(r.why === 'ENOTFOUND' || r.why === 'EAI_AGAIN', `why ${r.why}`);
  assert.is(r.sent, false);
  assert.is(r.timedOut, false);
});

// A URL with user:password is no longer one: its credentials are sent as Basic auth (webhook-secrets.test.ts).
test('an error without a code (fetch refuses port 9, a "bad port") is "request failed" and counted as maybe sent', async () => {
  assert.equal(await postEvent({ url: 'http://127.0.0.1:9/hook' }, 'evt-1', lost, opts), {
    outcome: 'again',
    why: 'request failed',
    sent: true,
    timedOut: false,
  });
});

test('no answer within the timeout: again, the timeout named in ms, maybe sent (the receiver may have it), timed out', async () => {
  const rx = await receiver(() => undefined); // reads the request, never answers
  try {
    assert.equal(await postEvent({ url: rx.url }, 'evt-1', lost, { ...opts, timeoutMs: 300 }), {
      outcome: 'again',
      why: 'no answer within 300 ms',
      sent: true,
      timedOut: true,
    });
    assert.is(rx.hits.length, 1, 'the request did arrive');
  } finally {
    await rx.close();
  }
});

test('unsentCode: refused, no such host, DNS not answering, no route to host or network mean surely not sent', () => {
  for (const code of ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']) assert.is(unsentCode(code), true, code);
});

test('unsentCode: a reset, a broken pipe, a timeout of the socket, an empty code or none may have reached the receiver', () => {
  for (const code of ['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'UND_ERR_SOCKET', '', 'econnrefused', undefined]) assert.is(unsentCode(code), false, String(code));
});

test('llmgw signature is "sha256=" and the hex HMAC-SHA256 of the body under the secret', () => {
  const expected = 'sha256=' + createHmac('sha256', 's3cret').update('{"a":"é"}', 'utf8').digest('hex');
  assert.is(signature('s3cret', '{"a":"é"}'), expected);
});

test('Standard Webhooks signature is "v1," and the base64 HMAC of "id.timestamp.body"; a whsec_ secret is its base64 bytes', () => {
  const key = Buffer.from('c2VjcmV0LWJ5dGVz', 'base64');
  const whsec = 'v1,' + createHmac('sha256', key).update('evt-1.1796000000.{}', 'utf8').digest('base64');
  assert.is(standardSignature('whsec_c2VjcmV0LWJ5dGVz', 'evt-1', 1_796_000_000, '{}'), whsec);
  const plain = 'v1,' + createHmac('sha256', Buffer.from('plain', 'utf8')).update('evt-1.1796000000.{}', 'utf8').digest('base64');
  assert.is(standardSignature('plain', 'evt-1', 1_796_000_000, '{}'), plain);
});

test.run();
