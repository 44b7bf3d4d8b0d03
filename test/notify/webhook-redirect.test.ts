// A webhook that answers with a redirect (docs/notifications.md): the signed POST
// never goes to the Location the receiver names (a hook URL may be taken over, or
// mistyped into an open redirector), and the delivery is final: not retried now,
// not kept for the next tick. Two real HTTP servers on 127.0.0.1.

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

for (const status of [300, 301, 302, 303, 307, 308]) {
  test(`a webhook answering ${status} is not followed: the redirect target receives nothing, and the delivery is final`, async () => {
    const target = await receiver();
    const redirector = await receiver((res) => res.writeHead(status, { location: `${target.url}/stolen` }).end());
    const lines: string[] = [];
    try {
      const r = await deliver([{ url: redirector.url, secret: 'topsecret' }], [event], { backoffMs: 1, log: (l) => lines.push(l) });
      assert.equal(target.hits, [], 'nothing reached the redirect target');
      assert.is(redirector.hits.length, 1, 'asked once: a redirect is not retried');
      assert.is(redirector.hits[0]!.method, 'POST');
      assert.equal(r, { ok: 0, failed: 1, undelivered: [] }, 'counted failed and not kept for the next tick');
      assert.equal(lines, [`webhook #1 (127.0.0.1): node.lost gpu-a02 not delivered: HTTP ${status} (redirects are not followed)`]);
    } finally {
      await redirector.close();
      await target.close();
    }
  });
}

test('a 400 is a refusal, not a redirect: logged as HTTP 400, asked once, not kept', async () => {
  const rx = await receiver(statuses(400));
  const lines: string[] = [];
  try {
    const r = await deliver([{ url: rx.url }], [event], { backoffMs: 1, log: (l) => lines.push(l) });
    assert.equal(r, { ok: 0, failed: 1, undelivered: [] });
    assert.is(rx.hits.length, 1);
    assert.equal(lines, ['webhook #1 (127.0.0.1): node.lost gpu-a02 not delivered: HTTP 400']);
  } finally {
    await rx.close();
  }
});

test.run();
