// How deliver() treats a receiver that is slow to say yes, or can never be
// reached (docs/notifications.md): which answers are asked again, how long it
// waits between tries, and what the log line says — never the hook's URL,
// which often carries a token.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { deliver } from '../../src/notify/webhook.js';
import type { NotifyEvent } from '../../src/notify/events.js';
import { receiver, statuses } from './http-receiver.js';

const event: NotifyEvent = {
  event: 'node.lost',
  cluster: 'prod-eu',
  time: '2026-11-29T08:00:00Z',
  subject: 'gpu-a02',
  text: '[prod-eu] Node gpu-a02 is lost.',
  details: { node: 'gpu-a02' },
};

for (const status of [408, 429]) {
  test(`a ${status} means "not now": asked again, and delivered when the receiver takes it`, async () => {
    const rx = await receiver(statuses(status, status));
    try {
      assert.equal(await deliver([{ url: rx.url }], [event], { backoffMs: 1 }), { ok: 1, failed: 0, undelivered: [] });
      assert.is(rx.hits.length, 3);
    } finally {
      await rx.close();
    }
  });
}

test('each POST says who sends it: user-agent llmgw, JSON content', async () => {
  const rx = await receiver();
  try {
    await deliver([{ url: rx.url }], [event]);
    assert.is(rx.hits[0]!.headers['user-agent'], 'llmgw');
    assert.is(rx.hits[0]!.headers['content-type'], 'application/json');
  } finally {
    await rx.close();
  }
});

test('retries wait backoffMs, then twice that, measured where the receiver sees them', async () => {
  const rx = await receiver(statuses(503, 503));
  try {
    assert.equal(await deliver([{ url: rx.url }], [event], { backoffMs: 150 }), { ok: 1, failed: 0, undelivered: [] });
    const [a, b, c] = rx.hits.map((h) => h.at);
    assert.ok(b! - a! >= 150, `first wait ${b! - a!} ms`);
    assert.ok(c! - b! >= 300, `second wait ${c! - b!} ms, twice the first`);
  } finally {
    await rx.close();
  }
});

test('without backoffMs the first retry waits 500 ms', async () => {
  const rx = await receiver(statuses(500));
  try {
    assert.equal(await deliver([{ url: rx.url }], [event], { retries: 1 }), { ok: 1, failed: 0, undelivered: [] });
    assert.ok(rx.hits[1]!.at - rx.hits[0]!.at >= 500, `waited ${rx.hits[1]!.at - rx.hits[0]!.at} ms`);
  } finally {
    await rx.close();
  }
});

test('the first try never waits for a backoff, however long the backoff is', async () => {
  // With the first try held back by any part of an hour's backoff, this would not finish.
  const rx = await receiver();
  try {
    assert.equal(await deliver([{ url: rx.url }], [event], { backoffMs: 3_600_000 }), { ok: 1, failed: 0, undelivered: [] });
  } finally {
    await rx.close();
  }
});

test('a hook URL that does not parse is named "invalid URL" in the log, and deliver does not throw', async () => {
  const lines: string[] = [];
  const r = await deliver([{ url: 'hooks example/T0KEN' }], [event], { retries: 0, log: (l) => lines.push(l) });
  assert.equal(r, { ok: 0, failed: 1, undelivered: [event] });
  assert.equal(lines, ['webhook #1 (invalid URL): node.lost gpu-a02 not delivered: ERR_INVALID_URL']);
});

test('a hook URL with user:password in it fails as "request failed", never quoting the URL fetch put in its error', async () => {
  const rx = await receiver();
  const lines: string[] = [];
  try {
    const url = rx.url.replace('http://', 'http://bot:hunter2@');
    const r = await deliver([{ url }], [event], { retries: 0, log: (l) => lines.push(l) });
    assert.equal(r, { ok: 0, failed: 1, undelivered: [event] });
    assert.equal(lines, ['webhook #1 (127.0.0.1): node.lost gpu-a02 not delivered: request failed']);
    assert.equal(rx.hits, []);
  } finally {
    await rx.close();
  }
});

test('a hook on a port fetch will not use (6000) fails as "request failed", not an empty reason', async () => {
  const lines: string[] = [];
  const r = await deliver([{ url: 'http://127.0.0.1:6000/hook' }], [event], { retries: 0, log: (l) => lines.push(l) });
  assert.equal(r, { ok: 0, failed: 1, undelivered: [event] });
  assert.equal(lines, ['webhook #1 (127.0.0.1): node.lost gpu-a02 not delivered: request failed']);
});

test.run();
