// Untrusted outbox entries are dropped with one warning each, at most 100 a
// tick, the rest counted in one more line (docs/notifications.md#the-outbox-is-signed);
// with a key from LLMGW_OUTBOX_KEY or the identity the warning does not blame a missing key.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { NotifyEvent } from '../../src/notify/events.js';
import { deriveOutboxKey } from '../../src/notify/outbox-mac.js';
import { deliverOutbox, eventId } from '../../src/notify/outbox.js';
import { emptyState, type OutboxEntry } from '../../src/types/state.js';

const NOW = new Date('2026-11-29T12:00:00Z');
const key = deriveOutboxKey(Buffer.from('k'), 'env');

function unsigned(n: number): OutboxEntry[] {
  return Array.from({ length: n }, (_, i) => {
    const event: NotifyEvent = { event: 'node.lost', cluster: 'c', time: NOW.toISOString(), subject: `n${i}`, text: 't', details: {} };
    return { id: eventId(event), event, hooks: ['h'] };
  });
}

async function drop(n: number): Promise<string[]> {
  const lines: string[] = [];
  const left = await deliverOutbox({ ...emptyState(), outbox: unsigned(n) }, [], { now: () => NOW, log: (l) => lines.push(l), backoffMs: 1, key });
  assert.equal(left.outbox, []);
  return lines;
}

test('with a configured key, a dropped entry is blamed on its MAC alone', async () => {
  const [entry] = unsigned(1);
  assert.equal(await drop(1), [
    `warning: notify: dropped event ${entry!.id} from the outbox unsent: it carries no MAC (queued by an older llmgw, or not by llmgw at all)`,
  ]);
});

test('exactly 100 untrusted entries are 100 lines and no summary', async () => {
  const lines = await drop(100);
  assert.is(lines.length, 100);
  assert.ok(lines.every((l) => l.startsWith('warning: notify: dropped event evt_')));
});

test('102 untrusted entries are 100 lines and one counting the other 2', async () => {
  const lines = await drop(102);
  assert.is(lines.length, 101);
  assert.ok(lines.slice(0, 100).every((l) => l.startsWith('warning: notify: dropped event evt_')));
  assert.is(lines[100], 'warning: notify: dropped 2 more untrusted outbox entries unsent');
});

test.run();
