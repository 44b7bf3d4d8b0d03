// Writing the three generated files (docs/config.md): together, and only when
// STATUS.md or state.json changed — a new observedAt alone never commits, so
// on a steady fleet nothing is even written and the checkout stays clean.
// The test is against HEAD, not only the disk: a tick that crashed after
// writing and before committing leaves files the next tick must still commit.

import { join } from 'node:path';
import { OBSERVED_FILE, STATE_FILE, STATUS_FILE, serializeState } from '../config/repo-files.js';
import { createGitRunner } from '../git/runner.js';
import type { Snapshot } from '../types/snapshot.js';
import type { State } from '../types/state.js';
import { readTextIfExists, stableJson, writeFileAtomic } from '../util/fs.js';

export interface Generated {
  status: string;
  state: State;
  snapshot: Snapshot | null;
}

/** Writes the files that matter; true when STATUS.md or state.json changed (and so all were written). */
export async function writeGenerated(dir: string, g: Generated): Promise<boolean> {
  const stateText = serializeState(g.state);
  const [oldStatus, oldState] = await Promise.all([
    readTextIfExists(join(dir, STATUS_FILE)),
    readTextIfExists(join(dir, STATE_FILE)),
  ]);
  if (oldStatus === g.status && oldState === stateText && !(await differFromHead(dir))) return false;
  await writeFileAtomic(join(dir, STATUS_FILE), g.status);
  await writeFileAtomic(join(dir, STATE_FILE), stateText);
  if (g.snapshot) await writeFileAtomic(join(dir, OBSERVED_FILE), stableJson(g.snapshot));
  return true;
}

/** STATUS.md or state.json differ from HEAD (uncommitted leftovers of an interrupted tick). */
async function differFromHead(dir: string): Promise<boolean> {
  return (await createGitRunner(dir, process.env).run(['status', '--porcelain=v1', '--', STATUS_FILE, STATE_FILE])) !== '';
}
