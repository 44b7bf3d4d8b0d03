// Observing the fleet live: what `gather`, and `status`/`plan` without
// --observed, share. Reads the repo's previous snapshot and state (so
// unreachable-since times carry over), opens an SSH transport, gathers, closes.

import { join } from 'node:path';
import { readGeneratedFile } from '../config/generated-paths.js';
import { OBSERVED_FILE, parseSnapshot, readState } from '../config/repo-files.js';
import { DataError } from '../errors.js';
import { emptyState, type State } from '../types/state.js';
import type { Config } from '../types/config.js';
import type { Snapshot } from '../types/snapshot.js';
import { formatSchemaIssues, getValidator } from '../util/schema.js';
import { gatherSnapshot } from './gather.js';
import { createProgressLine } from './progress.js';

/** The previous snapshot and state; a broken one is a warning, never a reason not to observe. */
export async function previousRun(dir: string, warn: (m: string) => void): Promise<{ previous: Snapshot | null; state: State }> {
  const file = join(dir, OBSERVED_FILE);
  let previous: Snapshot | null = null;
  let state = emptyState();
  try {
    // Never through a symbolic link (docs/security.md): a linked file or .llmgw/ is a DataError here.
    const text = await readGeneratedFile(dir, OBSERVED_FILE, file);
    if (text !== null) previous = parseSnapshot(text, file);
    const checked = previous === null ? null : getValidator('snapshot')(previous);
    if (checked && !checked.ok) {
      previous = null;
      // What it would carry over cannot be trusted: a report from it would go into the new snapshot as is.
      throw new DataError(`${file}: not a valid snapshot (${formatSchemaIssues(checked.errors, 1)})`);
    }
  } catch (err) {
    if (!(err instanceof DataError)) throw err;
    warn(`${err.message}; unreachable times start afresh`);
  }
  try {
    state = await readState(dir);
  } catch (err) {
    if (!(err instanceof DataError)) throw err;
    warn(err.message);
  }
  return { previous, state };
}

/**
 * Gather over SSH, with a progress line on a terminal's stderr. `now` stamps
 * the observation (and any newly unreachable node), so a command run with
 * --now judges times on the same clock it recorded them with.
 */
export async function observeLive(
  config: Config,
  repoDir: string,
  io: { env: Record<string, string | undefined>; stderr: NodeJS.WritableStream & { isTTY?: boolean } },
  now: () => Date,
): Promise<{ snapshot: Snapshot; state: State }> {
  const warn = (m: string): void => void io.stderr.write(`warning: ${m}\n`);
  const { previous, state } = await previousRun(repoDir, warn);
  // Loaded only here: commands that never touch SSH never load ssh2.
  const { createSshTransport } = await import('./ssh-transport.js');
  const transport = createSshTransport(config.cluster.ssh, { env: io.env, onWarning: warn });
  const progress = createProgressLine(io.stderr);
  try {
    const snapshot = await gatherSnapshot(config, { transport, previous, state, now, onProgress: (p) => progress.update(p) });
    return { snapshot, state };
  } finally {
    progress.done();
    await transport.close();
  }
}
