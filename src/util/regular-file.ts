// Reading a file from a repo that a pull request can shape (docs/security.md):
// only a regular file is read, never a symbolic link (it could point at a
// private key or /proc/self/environ) nor a FIFO or device (a FIFO would block
// the reader for ever), and never more than a cap, checked before reading.

import { constants } from 'node:fs';
import { lstat, open } from 'node:fs/promises';
import { errnoCode } from './errno.js';

export type RegularFileResult =
  | { ok: true; text: string }
  | { ok: false; why: 'missing' | 'symlink' | 'not-regular' | 'directory' }
  | { ok: false; why: 'too-large'; size: number }
  | { ok: false; why: 'error'; code: string };

/**
 * The file's text (UTF-8) when `path` is a regular file of at most `maxBytes`.
 * lstat says what the path is without following it; O_NOFOLLOW closes the race
 * of a file swapped for a link between the two calls, and O_NONBLOCK keeps a
 * FIFO put there meanwhile from blocking the open.
 */
export async function readRegularFile(path: string, maxBytes: number): Promise<RegularFileResult> {
  try {
    const st = await lstat(path);
    if (st.isSymbolicLink()) return { ok: false, why: 'symlink' };
    if (st.isDirectory()) return { ok: false, why: 'directory' };
    if (!st.isFile()) return { ok: false, why: 'not-regular' };
    if (st.size > maxBytes) return { ok: false, why: 'too-large', size: st.size };
  } catch (err) {
    return failure(err);
  }
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    return failure(err);
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) return { ok: false, why: 'not-regular' };
    if (st.size > maxBytes) return { ok: false, why: 'too-large', size: st.size };
    // Read to the end, not to the size stat gave: the file may have grown since; past the cap is too large.
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.alloc(Math.min(1 << 20, maxBytes + 1 - total));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      total += bytesRead;
      if (total > maxBytes) return { ok: false, why: 'too-large', size: total };
    }
    return { ok: true, text: Buffer.concat(chunks).toString('utf8') };
  } catch (err) {
    return failure(err);
  } finally {
    await handle.close();
  }
}

function failure(err: unknown): RegularFileResult {
  const code = errnoCode(err) ?? 'error';
  if (code === 'ENOENT' || code === 'ENOTDIR') return { ok: false, why: 'missing' };
  // O_NOFOLLOW on a link that appeared after the lstat.
  if (code === 'ELOOP') return { ok: false, why: 'symlink' };
  if (code === 'EISDIR') return { ok: false, why: 'directory' };
  return { ok: false, why: 'error', code };
}

// How a size reads is a shared word (src/text), kept importable from here for the readers' messages.
export { formatBytes } from '../text/format.js';
