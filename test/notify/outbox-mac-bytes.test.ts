// The outbox's MAC byte for byte (docs/notifications.md#the-outbox-is-signed):
// the key is an HMAC of the fixed label keyed with the material, and an
// entry's MAC is an HMAC of its canonical JSON (keys sorted at every depth,
// undefined fields left out, an undefined in an array as null, exactly as
// state.json reads it back). Known answers, computed here independently, hold
// each rule: a MAC that changes with the code would drop every entry queued by
// the llmgw before it.

import { createHmac } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { NotifyEvent } from '../../src/notify/events.js';
import { deriveOutboxKey, entryMac, sealEntry, unverified } from '../../src/notify/outbox-mac.js';
import type { OutboxEntry } from '../../src/types/state.js';

const hmac = (key: Buffer | string, text: string) => createHmac('sha256', key).update(text, 'utf8');

test('the outbox key is HMAC-SHA256(material, "llmgw outbox mac v1"), whatever the source', () => {
  const material = Buffer.from('secret ключ', 'utf8');
  const k = deriveOutboxKey(material, 'env');
  assert.is(k.source, 'env');
  assert.is(k.bytes.toString('hex'), hmac(material, 'llmgw outbox mac v1').digest('hex'));
  assert.is(deriveOutboxKey(material, 'identity').bytes.toString('hex'), k.bytes.toString('hex'));
});

test("an entry's MAC is over its canonical JSON: keys sorted at every depth, undefined left out, arrays as arrays", () => {
  const key = deriveOutboxKey(Buffer.from('k'), 'env');
  const event = {
    text: 't',
    subject: 's',
    event: 'node.lost',
    time: '2026-11-29T12:00:00Z',
    cluster: 'c',
    details: { z: [2, { b: 1, a: null }], gone: undefined, a: 'x' },
  } as unknown as NotifyEvent;
  const entry: OutboxEntry = { id: 'evt_00ff', event, hooks: ['h2', 'h1'] };
  const body =
    '{"event":{"cluster":"c","details":{"a":"x","z":[2,{"a":null,"b":1}]},"event":"node.lost","subject":"s","text":"t","time":"2026-11-29T12:00:00Z"},' +
    '"hooks":["h1","h2"],"id":"evt_00ff"}';
  assert.is(entryMac(key, entry), hmac(key.bytes, body).digest('hex'));
  assert.equal(entry.hooks, ['h2', 'h1'], 'the caller keeps its hooks in its own order: the MAC sorts a copy');
});

test('an undefined inside an array is null, so an entry sealed in memory still verifies after state.json read it back', () => {
  const key = deriveOutboxKey(Buffer.from('k'), 'env');
  const event = {
    event: 'node.lost',
    cluster: 'c',
    time: '2026-11-29T12:00:00Z',
    subject: 's',
    text: 't',
    details: { list: [undefined, 1] },
  } as unknown as NotifyEvent;
  const sealed = sealEntry(key, { id: 'evt_01', event, hooks: ['h'] });
  const readBack = JSON.parse(JSON.stringify(sealed)) as OutboxEntry;
  assert.equal(readBack.event.details, { list: [null, 1] });
  assert.is(unverified(key, readBack), null);
  assert.is(unverified(key, sealed), null);
});

test('a MAC of the wrong length is bad-mac, not an exception', () => {
  const key = deriveOutboxKey(Buffer.from('k'), 'env');
  const event = { event: 'node.lost', cluster: 'c', time: '2026-11-29T12:00:00Z', subject: 's', text: 't', details: {} } as NotifyEvent;
  assert.is(unverified(key, { id: 'evt_02', event, hooks: ['h'], mac: 'abcd' }), 'bad-mac');
  assert.is(unverified(key, { id: 'evt_02', event, hooks: ['h'], mac: '' }), 'bad-mac');
});

test.run();
