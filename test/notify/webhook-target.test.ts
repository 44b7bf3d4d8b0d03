// What a POST is sent with (docs/notifications.md): a hook named by its
// position and variables; credentials in the URL as Basic auth (a user
// alone, or a password alone, is credentials too; a malformed %-escape is
// sent as written); a URL that does not parse is left to fetch; llmgw's own
// headers; a request fetch refuses before sending is "request failed".

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { hookName, postEvent, postTarget, requestHeaders } from '../../src/notify/webhook.js';
import type { NotifyEvent } from '../../src/notify/events.js';

const basic = (s: string) => 'Basic ' + Buffer.from(s, 'utf8').toString('base64');

test('a hook is named by its position and the variables its URL came from, comma separated', () => {
  assert.is(hookName({ url: 'https://x/', urlVars: ['$A', '$B'] }, 1), 'webhook 2 ($A, $B)');
  assert.is(hookName({ url: 'https://x/' }, 0), 'webhook 1');
});

test('a user alone, or a password alone, in the URL is Basic auth; the URL goes without them', () => {
  assert.equal(postTarget('https://tok@hooks.example/p'), { url: 'https://hooks.example/p', authorization: basic('tok:') });
  assert.equal(postTarget('https://:pw@hooks.example/p'), { url: 'https://hooks.example/p', authorization: basic(':pw') });
  assert.equal(postTarget('https://hooks.example/p'), { url: 'https://hooks.example/p' });
});

test('a malformed %-escape in the credentials is sent as written', () => {
  assert.equal(postTarget('https://us%ZZer:p%41w@hooks.example/'), { url: 'https://hooks.example/', authorization: basic('us%ZZer:pAw') });
});

test('a URL that does not parse is returned as it is', () => {
  assert.equal(postTarget('not a url'), { url: 'not a url' });
});

test("llmgw's own headers; no authorization header at all without credentials", () => {
  const h = requestHeaders({ url: 'https://hooks.example/' }, 'evt_1', '{}', 1700000000);
  assert.equal(h, { 'content-type': 'application/json', 'user-agent': 'llmgw', 'webhook-id': 'evt_1', 'webhook-timestamp': '1700000000' });
  assert.not.ok(Object.keys(h).includes('authorization'));
});

test('a request fetch refuses before sending (a header it will not send) is again, "request failed", maybe sent', async () => {
  const e: NotifyEvent = { event: 'node.lost', cluster: 'c', time: '2026-11-29T12:00:00Z', subject: 's', text: 't', details: {} };
  const r = await postEvent({ url: 'http://127.0.0.1:9/', headers: { 'x-bad': 'a\nb' } }, 'evt_1', e, { timeoutMs: 30_000, nowSeconds: 1 });
  assert.equal(r, { outcome: 'again', why: 'request failed', sent: true, timedOut: false });
});

test.run();
