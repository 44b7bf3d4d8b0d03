// What one POST's answer means (src/notify/webhook.ts postEvent), at the
// edges of each class: 2xx taken (also with no body, 204), 3xx a redirect
// that is final (300 and 399 too), a 4xx final, 408/429/5xx worth another try
// and maybe received. One real server on 127.0.0.1 per status.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { receiver, statuses } from './http-receiver.js';
import { postEvent } from '../../src/notify/webhook.js';
import { LOST_EVENT } from '../fixtures/index.js';

const lost = LOST_EVENT;

async function outcome(status: number) {
  const rx = await receiver(statuses(status));
  try {
    return await postEvent({ url: rx.url }, 'evt-1', lost, { timeoutMs: 5000, nowSeconds: 1_796_000_000 });
  } finally {
    await rx.close();
  }
}

test('a 2xx is taken: 200, 204 (no body to drop) and 299', async () => {
  for (const s of [200, 204, 299]) assert.equal(await outcome(s), { outcome: 'taken' }, String(s));
});

test('every 3xx is a final redirect, not followed: 300, 304 (no body) and 399', async () => {
  for (const s of [300, 304, 399]) assert.equal(await outcome(s), { outcome: 'final', why: `HTTP ${s} (a redirect, not followed)` }, String(s));
});

test('a 4xx other than 408 and 429 is final: 400, 404, 499', async () => {
  for (const s of [400, 404, 499]) assert.equal(await outcome(s), { outcome: 'final', why: `HTTP ${s}` }, String(s));
});

test('408, 429 and every 5xx are worth another try, and the receiver may have the event', async () => {
  for (const s of [408, 429, 500, 503, 599]) {
    assert.equal(await outcome(s), { outcome: 'again', why: `HTTP ${s}`, sent: true, timedOut: false }, String(s));
  }
});

test.run();
