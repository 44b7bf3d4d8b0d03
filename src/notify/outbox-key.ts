// Which key signs the outbox (docs/notifications.md#the-outbox-is-signed):
// $LLMGW_OUTBOX_KEY, else the bytes of ssh.identityFile, else this process's
// own random key. The one place that reads the identity's bytes for it; the
// path may come from `${VAR}`, so nothing here ever names it, and a file
// that cannot be read just means the next key in line.

import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { deriveOutboxKey, processOutboxKey, type OutboxKey } from './outbox-mac.js';

/** An SSH private key is a few KiB; anything far larger is not one, and is not read whole. */
const MAX_IDENTITY_BYTES = 1024 * 1024;

/** The file's bytes when it is a regular file (a link to one is fine: a mounted secret is one) of sane size; null otherwise. */
async function identityBytes(path: string): Promise<Buffer | null> {
  let handle;
  try {
    // O_NONBLOCK: a FIFO put at the path never blocks a tick.
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
    const st = await handle.stat();
    if (!st.isFile() || st.size === 0 || st.size > MAX_IDENTITY_BYTES) return null;
    return await handle.readFile();
  } catch {
    return null;
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/** The outbox key for this tick. `identityFile` is cluster.yaml's ssh.identityFile as resolved (absent when it names none). */
export async function loadOutboxKey(env: Record<string, string | undefined>, identityFile: string | undefined): Promise<OutboxKey> {
  const fromEnv = env.LLMGW_OUTBOX_KEY;
  if (fromEnv !== undefined && fromEnv !== '') return deriveOutboxKey(Buffer.from(fromEnv, 'utf8'), 'env');
  const bytes = identityFile ? await identityBytes(identityFile) : null;
  return bytes === null ? processOutboxKey() : deriveOutboxKey(bytes, 'identity');
}
