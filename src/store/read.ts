// The one reader of the committed run (docs/config.md): STATUS.md,
// .llmgw/observed.json and .llmgw/state.json, on disk or at a git ref. Each
// file under its one size cap (MAX_BYTES) and only as a regular file: never
// through a symbolic link (docs/security.md). Parsing is files.ts's; writing
// is write.ts's.

import { join } from 'node:path';
import { DataError } from '../errors.js';
import { formatBytes } from '../util/regular-file.js';
import { OBSERVED_FILE, STATE_FILE, STATUS_FILE, parseSnapshot, parseState, stateOrFresh } from './files.js';
import { MAX_BYTES, readGeneratedFile, readGeneratedOrNull, type RunFile } from './paths.js';
import { emptyState, type State } from '../types/state.js';
import type { Snapshot } from '../types/snapshot.js';

/**
 * The previous snapshot and state; a broken one is a warning, never a reason
 * not to observe. Each covers for the other: a node's unreachable-since time
 * and the replicas it last ran are in both files (src/gather/gather.ts), so
 * losing either one never turns "unreachable" into "lost" nor frees a
 * replica id that may still run.
 */
export async function previousRun(dir: string, warn: (m: string) => void): Promise<{ previous: Snapshot | null; state: State }> {
  const file = join(dir, OBSERVED_FILE);
  let previous: Snapshot | null = null;
  try {
    // Never through a symbolic link (docs/security.md): a linked file or .llmgw/ is a DataError here.
    const text = await readGeneratedFile(dir, OBSERVED_FILE, file);
    // What it would carry over must be valid: a report from it goes into the new snapshot as is.
    if (text !== null) previous = parseSnapshot(text, file);
  } catch (err) {
    if (!(err instanceof DataError)) throw err;
    warn(`${err.message}; what it said of unreachable nodes comes from ${STATE_FILE} instead`);
  }
  const stateFile = join(dir, STATE_FILE);
  // A linked state file or .llmgw/ is read as none (one warning): nothing is read through it.
  const stateText = await readGeneratedFile(dir, STATE_FILE, stateFile).catch((err: unknown) => {
    if (!(err instanceof DataError)) throw err;
    warn(`${err.message}; starting from an empty state`);
    return null;
  });
  const state = stateOrFresh(stateText, stateFile, warn);
  return { previous, state };
}

/**
 * `.llmgw/state.json` of the repo, or an empty state when there is none; a
 * DataError when it is not a valid one, or is not a regular file (never read
 * through a symbolic link: docs/security.md).
 */
export async function readState(repoDir: string): Promise<State> {
  const file = join(repoDir, STATE_FILE);
  const text = await readGeneratedFile(repoDir, STATE_FILE, file);
  return text === null ? emptyState() : parseState(text, file);
}

/** STATUS.md as readers of the checkout see it; null when there is none, or it is not a readable regular file (a tick rewrites it). */
export function committedStatus(dir: string): Promise<string | null> {
  return readGeneratedOrNull(dir, STATUS_FILE);
}

/** state.json of the checkout; a broken one, or one that is not a regular file, is one warning and an empty state. */
export async function committedState(dir: string, warn: (m: string) => void): Promise<State> {
  const file = join(dir, STATE_FILE);
  const text = await readGeneratedFile(dir, STATE_FILE, file).catch((err: unknown) => {
    if (!(err instanceof DataError)) throw err;
    warn(`${err.message}; starting from an empty state`);
    return null;
  });
  return stateOrFresh(text, file, warn);
}

/** The checkout's snapshot; null when there is none. A DataError when it cannot be read or is not a valid snapshot. */
export async function committedSnapshot(dir: string): Promise<Snapshot | null> {
  const file = join(dir, OBSERVED_FILE);
  const text = await readGeneratedFile(dir, OBSERVED_FILE, file);
  return text === null ? null : parseSnapshot(text, file);
}

/** What reads a file at a ref (src/git/config-repo.ts TreeReader): the store needs no more of git. */
export interface AtRef {
  fileAt(ref: string, path: string): Promise<string | null>;
}

/**
 * A file of the run as committed at `ref`; null when `ref` has none. A link
 * there is a DataError (TreeReader.fileAt), and so is a file past its cap.
 */
export async function runFileAt(tree: AtRef, ref: string, file: RunFile): Promise<string | null> {
  const text = await tree.fileAt(ref, file);
  if (text === null) return null;
  const size = Buffer.byteLength(text);
  if (size > MAX_BYTES[file]) throw new DataError(`${ref}:${file}: not read: it is ${formatBytes(size)}, more than ${formatBytes(MAX_BYTES[file])}`);
  return text;
}
