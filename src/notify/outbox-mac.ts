// Signed means detected (docs/notifications.md#the-outbox-is-signed): every
// outbox entry carries an HMAC-SHA256 over its canonical JSON, so an entry a
// pull request adds to (or changes in) the committed state.json is dropped
// before anything is sent. The outbox is committed to the config repo, which
// anyone with push access — or a merged PR — can edit; a webhook's own secret
// cannot be the key, because a receiver would then sign whatever llmgw is made
// to send. The key is never anything the repo holds: $LLMGW_OUTBOX_KEY, else
// the bytes of the SSH identity (every machine that may take over holds it),
// else a random key of this process only, which lets a process trust exactly
// the entries it queued itself. Pure: the bytes come in, nothing is read here.

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { OutboxEntry } from '../types/state.js';

/** Where the key came from: it decides what a drop's warning says, never what the key is. */
export type OutboxKeySource = 'env' | 'identity' | 'process';

export interface OutboxKey {
  readonly bytes: Buffer;
  readonly source: OutboxKeySource;
}

/** Fixed label the key is derived under: the same material keys nothing else llmgw signs. */
const LABEL = 'llmgw outbox mac v1';

/** The outbox key from secret material (the variable's bytes or the identity file's): an HMAC of a fixed label keyed with it. */
export function deriveOutboxKey(material: Buffer, source: Exclude<OutboxKeySource, 'process'>): OutboxKey {
  return { bytes: createHmac('sha256', material).update(LABEL, 'utf8').digest(), source };
}

const PROCESS_KEY: OutboxKey = { bytes: randomBytes(32), source: 'process' };

/** This process's own key: with neither $LLMGW_OUTBOX_KEY nor an identity file, only what this process queued verifies. */
export function processOutboxKey(): OutboxKey {
  return PROCESS_KEY;
}

/** JSON with every object's keys sorted: the same entry is the same bytes whichever code built it or read it back. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value)
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return stringify(value) ?? 'null';
}

/** undefined (and functions) stringify to undefined, whatever JSON.stringify's type says. */
function stringify(value: unknown): string | undefined {
  return JSON.stringify(value);
}

/** The hex HMAC-SHA256 of the entry without its MAC (hooks in sorted order, as state.json keeps them). */
export function entryMac(key: OutboxKey, entry: OutboxEntry): string {
  const body = canonical({ id: entry.id, event: entry.event, hooks: [...entry.hooks].sort() });
  return createHmac('sha256', key.bytes).update(body, 'utf8').digest('hex');
}

/** The entry with a fresh MAC (after its hooks changed, or when first queued). */
export function sealEntry(key: OutboxKey, entry: OutboxEntry): OutboxEntry {
  return { id: entry.id, event: entry.event, hooks: entry.hooks, mac: entryMac(key, entry) };
}

/** Why an entry is not trusted; null when its MAC verifies under this key. */
export function unverified(key: OutboxKey, entry: OutboxEntry): 'no-mac' | 'bad-mac' | null {
  if (typeof entry.mac !== 'string') return 'no-mac';
  const want = Buffer.from(entryMac(key, entry), 'hex');
  const got = Buffer.from(entry.mac, 'hex');
  return got.length === want.length && timingSafeEqual(got, want) ? null : 'bad-mac';
}
