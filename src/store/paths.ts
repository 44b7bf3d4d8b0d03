// llmgw's own files in the config repo — STATUS.md, .llmgw/ and the two files
// in it — as a pull request can shape them (docs/security.md). Each must be a
// regular file (or, for .llmgw/, a real directory) both in the commit and on
// disk. A PR that makes STATUS.md a symbolic link to a private key or to
// /proc/self/environ would otherwise have the next tick read the secret
// through it and commit it; a linked .llmgw/ would have the tick write state
// outside its checkout. Anything else is a problem of the branch (nothing is
// applied), and what reads these files never follows a link, whatever the
// check said before.

import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { DataError } from '../errors.js';
import type { ConfigProblem } from '../types/config.js';
import { formatBytes, readRegularFile } from '../util/regular-file.js';
import { errnoCode } from '../util/errno.js';

export const STATUS_FILE = 'STATUS.md';
export const GENERATED_DIR = '.llmgw';
export const OBSERVED_FILE = '.llmgw/observed.json';
export const STATE_FILE = '.llmgw/state.json';

export type PathKind = 'file' | 'dir';

/** What each generated path must be; a directory before the files in it. */
export const GENERATED_PATHS: readonly { path: string; kind: PathKind }[] = [
  { path: STATUS_FILE, kind: 'file' },
  { path: GENERATED_DIR, kind: 'dir' },
  { path: OBSERVED_FILE, kind: 'file' },
  { path: STATE_FILE, kind: 'file' },
];

/** What a path turned out to be, on disk or in a commit. */
export type Found = 'missing' | 'file' | 'dir' | 'symlink' | 'other';

/** The three files of a committed run. */
export type RunFile = typeof STATUS_FILE | typeof OBSERVED_FILE | typeof STATE_FILE;

/**
 * The one size cap of each file, wherever it is read from (the disk, a ref):
 * a snapshot and the state of a very large fleet are large; STATUS.md is
 * rendered for people and stays small (its tables are cut to fit).
 */
export const MAX_BYTES: Readonly<Record<RunFile, number>> = {
  [STATUS_FILE]: 16 * 1024 * 1024,
  [OBSERVED_FILE]: 256 * 1024 * 1024,
  [STATE_FILE]: 256 * 1024 * 1024,
};

/** Why `found` is not what `path` must be; null when it is (or is missing, which is fine). */
export function pathProblem(path: string, kind: PathKind, found: Found): string | null {
  if (found === 'missing' || found === kind) return null;
  if (found === 'symlink') {
    return `${path} is a symbolic link: llmgw keeps STATUS.md and .llmgw/ only as regular files and directories, and reads or writes nothing through a link (a reconcile tick replaces it)`;
  }
  if (found === 'dir') return `${path} is a directory, not a file: llmgw writes this file itself (a reconcile tick replaces it)`;
  if (found === 'file') return `${path} is a file, not a directory: llmgw keeps its state there (a reconcile tick replaces it)`;
  return `${path} is not a regular ${kind === 'dir' ? 'directory' : 'file'} (a FIFO, socket, device or submodule): llmgw reads nothing there (a reconcile tick replaces it)`;
}

/** What `path` is on disk, never following a link. */
export async function foundOnDisk(path: string): Promise<Found> {
  try {
    const st = await lstat(path);
    if (st.isSymbolicLink()) return 'symlink';
    if (st.isFile()) return 'file';
    if (st.isDirectory()) return 'dir';
    return 'other';
  } catch (err) {
    const code = errnoCode(err);
    if (code === 'ENOENT' || code === 'ENOTDIR') return 'missing';
    return 'other';
  }
}

/** What a git tree entry's mode is: 120000 a symbolic link, 160000 a submodule. */
export function foundInTree(mode: string | undefined): Found {
  if (mode === undefined) return 'missing';
  if (mode === '120000') return 'symlink';
  if (mode === '040000') return 'dir';
  if (/^100[0-7]{3}$/.test(mode)) return 'file';
  return 'other';
}

function atLine1(file: string, message: string): ConfigProblem {
  return { file, line: 1, col: 1, path: '', message };
}

/**
 * One problem per generated path that is not what it must be, judged by
 * `foundAt`; the files inside a .llmgw/ that is wrong are not looked at
 * (nothing is read through it). `shownDir` prefixes the file names printed.
 */
async function problemsBy(foundAt: (path: string) => Found | Promise<Found>, shownDir: string): Promise<ConfigProblem[]> {
  const out: ConfigProblem[] = [];
  let dirOk = true;
  for (const { path, kind } of GENERATED_PATHS) {
    if (path.startsWith(`${GENERATED_DIR}/`) && !dirOk) continue;
    const why = pathProblem(path, kind, await foundAt(path));
    if (path === GENERATED_DIR) dirOk = why === null;
    if (why !== null) out.push(atLine1(shownDir === '.' || shownDir === '' ? path : join(shownDir, path), why));
  }
  return out;
}

/** The generated paths as they are in the repo on disk. */
export function diskPathProblems(repoDir: string, shownDir = '.'): Promise<ConfigProblem[]> {
  return problemsBy((p) => foundOnDisk(join(repoDir, p)), shownDir);
}

/** The generated paths as a commit has them (modes from `git ls-tree`). */
export function treePathProblems(modes: ReadonlyMap<string, string>, shownDir = '.'): Promise<ConfigProblem[]> {
  return problemsBy((p) => foundInTree(modes.get(p)), shownDir);
}

/** A file's one cap; the largest for a path that is none of the three. */
export function capOf(path: string): number {
  return Object.hasOwn(MAX_BYTES, path) ? MAX_BYTES[path as RunFile] : MAX_BYTES[OBSERVED_FILE];
}

/**
 * A generated file's text on disk; null when it does not exist. Read only as a
 * regular file inside a real .llmgw/ (O_NOFOLLOW guards the last part of a
 * path only, so the directory is looked at first), of at most its MAX_BYTES;
 * anything else is a DataError naming the file, and nothing is read.
 */
export async function readGeneratedFile(repoDir: string, path: string, shownAs = path): Promise<string | null> {
  const maxBytes = capOf(path);
  if (path.startsWith(`${GENERATED_DIR}/`)) {
    const dir = await foundOnDisk(join(repoDir, GENERATED_DIR));
    if (dir === 'missing') return null;
    const why = pathProblem(GENERATED_DIR, 'dir', dir);
    if (why !== null) throw new DataError(`${shownAs}: not read: ${why}`);
  }
  const r = await readRegularFile(join(repoDir, path), maxBytes);
  if (r.ok) return r.text;
  if (r.why === 'missing') return null;
  if (r.why === 'too-large') throw new DataError(`${shownAs}: not read: it is ${formatBytes(r.size)}, more than ${formatBytes(maxBytes)}`);
  if (r.why === 'error') throw new DataError(`${shownAs}: cannot read (${r.code})`);
  const found: Found = r.why === 'symlink' ? 'symlink' : r.why === 'directory' ? 'dir' : 'other';
  throw new DataError(`${shownAs}: not read: ${String(pathProblem(path, 'file', found))}`);
}

/** readGeneratedFile, with anything that is not a readable regular file read as absent (a file llmgw is about to rewrite). */
export async function readGeneratedOrNull(repoDir: string, path: string): Promise<string | null> {
  try {
    return await readGeneratedFile(repoDir, path);
  } catch (err) {
    if (err instanceof DataError) return null;
    throw err;
  }
}
