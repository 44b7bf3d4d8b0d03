// Writing the three generated files (docs/config.md): together, and only when
// STATUS.md or state.json changed — a new observedAt alone never commits, so
// on a steady fleet nothing is even written and the checkout stays clean.
// The test is against HEAD, not only the disk: a tick that crashed after
// writing and before committing leaves files the next tick must still commit.

import { join } from 'node:path';
import { GENERATED_FILES, OBSERVED_FILE, STATE_FILE, STATUS_FILE, serializeState } from '../config/repo-files.js';
import type { ConfigRepo } from '../git/config-repo.js';
import type { Snapshot } from '../types/snapshot.js';
import type { State } from '../types/state.js';
import { WriteError } from '../errors.js';
import { fsErrorText, readTextIfExists, removeDeadTemps, stableJson, writeFileAtomic } from '../util/fs.js';

export interface Generated {
  status: string;
  state: State;
  snapshot: Snapshot | null;
}

/** Writes the files that matter; true when STATUS.md or state.json changed (and so all were written). */
export async function writeGenerated(repo: Pick<ConfigRepo, 'dir' | 'changedFromHead'>, g: Generated): Promise<boolean> {
  const { dir } = repo;
  // A tick killed between a write and its rename left a temporary file: gone before this one writes.
  await Promise.all(GENERATED_FILES.map((f) => removeDeadTemps(join(dir, f))));
  const stateText = serializeState(g.state);
  const [oldStatus, oldState] = await Promise.all([
    readTextIfExists(join(dir, STATUS_FILE)),
    readTextIfExists(join(dir, STATE_FILE)),
  ]);
  if (oldStatus === g.status && oldState === stateText && (await repo.changedFromHead([STATUS_FILE, STATE_FILE])).length === 0) return false;
  await writeAll(dir, g);
  return true;
}

/** Writes all three, changed or not (`llmgw apply`, which does not commit). A full disk is one WriteError line. */
export async function writeAll(dir: string, g: Generated): Promise<void> {
  const files: [string, string][] = [[STATUS_FILE, g.status], [STATE_FILE, serializeState(g.state)]];
  if (g.snapshot) files.push([OBSERVED_FILE, stableJson(g.snapshot)]);
  for (const [file, text] of files) {
    await writeFileAtomic(join(dir, file), text, { moment: 'write' }).catch((err: unknown) => {
      const why = fsErrorText(err);
      throw why === null ? err : new WriteError(`cannot write ${file} in ${dir}: ${why}`, { cause: err });
    });
  }
}
