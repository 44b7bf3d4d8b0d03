// What the last committed run left for the next observation: the repo's
// previous snapshot and state, so unreachable-since times carry over.

import { join } from 'node:path';
import { OBSERVED_FILE, STATE_FILE, parseSnapshot, stateOrFresh } from '../config/repo-files.js';
import { readGeneratedFile } from '../config/generated-paths.js';
import { DataError } from '../errors.js';
import type { State } from '../types/state.js';
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
