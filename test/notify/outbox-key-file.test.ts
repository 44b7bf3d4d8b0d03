// Which identity file keys the outbox (docs/notifications.md#the-outbox-is-signed):
// a regular file of 1 byte to 1 MiB; an empty file or a larger one is no
// key material, and the process key is used. Reading it leaves no descriptor open.

import { readdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createHmac } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadOutboxKey } from '../../src/notify/outbox-key.js';
import { processOutboxKey } from '../../src/notify/outbox-mac.js';

const MiB = 1024 * 1024;

async function withFile(bytes: Buffer, fn: (path: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'llmgw-outbox-key-'));
  try {
    const path = join(dir, 'id_ed25519');
    await writeFile(path, bytes);
    await fn(path);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('an empty identity file is no key material: the process key', async () => {
  await withFile(Buffer.alloc(0), async (path) => {
    const k = await loadOutboxKey({}, path);
    assert.is(k, processOutboxKey());
    assert.is(k.source, 'process');
  });
});

test('an identity file of exactly 1 MiB keys the outbox; one byte more does not', async () => {
  const bytes = Buffer.alloc(MiB, 0x41);
  await withFile(bytes, async (path) => {
    const k = await loadOutboxKey({}, path);
    assert.is(k.source, 'identity');
    assert.is(k.bytes.toString('hex'), createHmac('sha256', bytes).update('llmgw outbox mac v1').digest('hex'));
  });
  await withFile(Buffer.alloc(MiB + 1, 0x41), async (path) => {
    assert.is((await loadOutboxKey({}, path)).source, 'process');
  });
});

test('reading the identity file leaves no file descriptor open', async () => {
  await withFile(Buffer.from('-----BEGIN OPENSSH PRIVATE KEY-----\n'), async (path) => {
    const before = readdirSync('/proc/self/fd').length;
    for (let i = 0; i < 5; i++) assert.is((await loadOutboxKey({}, path)).source, 'identity');
    assert.is(readdirSync('/proc/self/fd').length, before);
  });
});

test.run();
