// Issue #17's hole in notify: a webhook redirect must not be followed. A
// redirect would carry the signed POST (and its headers) to a place the
// operator never configured. Two real servers on 127.0.0.1: the hook answers
// with a redirect whose Location is the second one, which must receive nothing.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { receiver } from './http-receiver.js';
import { deliverOutbox, enqueue, eventId } from '../../src/notify/outbox.js';
import { postEvent } from '../../src/notify/webhook.js';
import { emptyState } from '../../src/types/state.js';
import { LOST_EVENT, at } from '../fixtures/index.js';

const lost = LOST_EVENT;
/** Five seconds into the kit's NOW: deliveries stamped then. */
const NOW = new Date(at(5));

for (const status of [301, 302, 303, 307, 308]) {
  test(`a webhook redirect (${status}) is not followed: its target receives nothing, and the delivery is final (not retried, not owed again)`, async () => {
    const target = await receiver();
    const hook = await receiver((res) => res.writeHead(status, { location: target.url }).end());
    try {
      const hooks = [{ url: hook.url, secret: 'topsecret' }];
      const lines: string[] = [];
      const left = await deliverOutbox(enqueue(emptyState(), [lost], hooks), hooks, { now: () => NOW, log: (l) => lines.push(l), backoffMs: 1 });
      assert.is(target.hits.length, 0, 'the redirect target got no request');
      assert.is(hook.hits.length, 1, 'one POST to the hook, no retry');
      assert.equal(left.outbox, [], 'not owed again');
      assert.equal(lines, [
        `notify: webhook 1: node.lost gpu-a02 (${eventId(lost)}) refused: HTTP ${status} (a redirect, not followed); not sent to this hook again`,
      ]);
      // A second tick with the outbox it left sends nothing anywhere.
      await deliverOutbox(left, hooks, { now: () => NOW, log: (l) => lines.push(l), backoffMs: 1 });
      assert.equal([hook.hits.length, target.hits.length, lines.length], [1, 0, 1]);
    } finally {
      await hook.close();
      await target.close();
    }
  });
}

test('postEvent calls a redirect final and names its status, without asking the redirect target', async () => {
  const target = await receiver();
  const hook = await receiver((res) => res.writeHead(307, { location: target.url }).end());
  try {
    const r = await postEvent({ url: hook.url }, 'evt-1', lost, { timeoutMs: 5000, nowSeconds: 1_796_000_000 });
    assert.equal(r, { outcome: 'final', why: 'HTTP 307 (a redirect, not followed)' });
    assert.equal([hook.hits.map((h) => h.method), target.hits.length], [['POST'], 0]);
  } finally {
    await hook.close();
    await target.close();
  }
});

test.run();
