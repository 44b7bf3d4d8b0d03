import { mkdir, readFile, readdir, rename, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { crashPoint } from './crash-point.js';
import { escapeJsonText } from './terminal-text.js';
import { errnoCode } from './errno.js';

/** `<file>.<pid>.<ms>.tmp`: the writer's pid in the name is what tells a dead writer's leftover from a live write. */
const TEMP = /^(.+)\.(\d+)\.(\d+)\.tmp$/;

/**
 * Write via a temporary file and rename, so a crash never leaves half a file.
 * A write that fails (a full disk: ENOSPC) removes its temporary file before
 * the error goes on: a full disk must not fill up further with our leftovers.
 */
export async function writeFileAtomic(path: string, data: string, opts: { moment?: string } = {}): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
  try {
    await writeFile(tmp, data);
    // Test only (src/util/crash-point.ts): a kill -9 between the write and the rename.
    if (opts.moment !== undefined) crashPoint(opts.moment);
    await rename(tmp, path);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
}

function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, it is just not ours to signal.
    return errnoCode(err) === 'EPERM';
  }
}

/**
 * Temporary files of `path` (as writeFileAtomic names them) whose writer is
 * dead: a `kill -9` between the write and the rename. Removed; their names
 * are returned. Another live process's write in progress is left alone.
 */
export async function removeDeadTemps(path: string): Promise<string[]> {
  const dir = dirname(path);
  const base = basename(path);
  const names = await readdir(dir).catch(() => [] as string[]);
  const removed: string[] = [];
  for (const name of names) {
    const m = TEMP.exec(name);
    if (!m || m[1] !== base || alive(Number(m[2]))) continue;
    await unlink(join(dir, name)).then(
      () => removed.push(name),
      () => undefined,
    );
  }
  return removed;
}

const ERRNO_TEXT: Record<string, string> = {
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EROFS: 'read-only file system',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EIO: 'input/output error',
};

/** What a file system error means, in a few words with its code (`no space left on device (ENOSPC)`); null for anything else. */
export function fsErrorText(err: unknown): string | null {
  const code = errnoCode(err);
  if (code === undefined || !/^E[A-Z]+$/.test(code)) return null;
  return `${ERRNO_TEXT[code] ?? code.toLowerCase()} (${code})`;
}

/** The file's text, or null when it does not exist. */
export async function readTextIfExists(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if (errnoCode(err) === 'ENOENT') return null;
    throw err;
  }
}

/** Stable JSON for committed files: two-space indent, trailing newline, no raw C1 or bidi control (docs/security.md). */
export function stableJson(value: unknown): string {
  return escapeJsonText(JSON.stringify(value, null, 2)) + '\n';
}
