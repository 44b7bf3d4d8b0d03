import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { escapeJsonText } from './terminal-text.js';

/** Write via a temporary file and rename, so a crash never leaves half a file. */
export async function writeFileAtomic(path: string, data: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(tmp, data);
  await rename(tmp, path);
}

/** The file's text, or null when it does not exist. */
export async function readTextIfExists(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** Stable JSON for committed files: two-space indent, trailing newline, no raw C1 or bidi control (docs/security.md). */
export function stableJson(value: unknown): string {
  return escapeJsonText(JSON.stringify(value, null, 2)) + '\n';
}
