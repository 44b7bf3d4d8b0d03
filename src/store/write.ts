// Writing the three generated files (docs/config.md): together, and only when
// STATUS.md or state.json changed — a new observedAt alone never commits, so
// on a steady fleet nothing is even written and the checkout stays clean.
// The test is against HEAD, not only the disk: a tick that crashed after
// writing and before committing leaves files the next tick must still commit.
//
// Never through a symbolic link (docs/security.md): a STATUS.md or .llmgw/
// that is a link (or a directory where a file belongs, …) is removed — the
// link itself, never what it points at — and written afresh as a regular
// file, so the commit replaces it. Its target is neither read nor written.

import { rm, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { GENERATED_PATHS, foundOnDisk, readGeneratedOrNull } from './paths.js';
import { GENERATED_FILES, OBSERVED_FILE, STATE_FILE, STATUS_FILE, parseState, serializeState } from './files.js';
import type { Snapshot } from '../types/snapshot.js';
import type { State } from '../types/state.js';
import { WriteError } from '../errors.js';
import { fsErrorText, removeDeadTemps, stableJson, writeFileAtomic } from '../util/fs.js';

/** What the writer needs of a checkout (src/git/config-repo.ts Checkout): where it is, and what differs from HEAD. */
export interface CheckoutFiles {
  readonly dir: string;
  changedFromHead(paths: readonly string[]): Promise<string[]>;
}

export interface Generated {
  status: string;
  state: State;
  snapshot: Snapshot | null;
}

/**
 * Removes each generated path that is not what it must be (a link, a FIFO, a
 * directory in place of a file or a file in place of .llmgw/), without
 * following anything; returns the paths removed, in order.
 */
export async function clearNonRegular(dir: string): Promise<string[]> {
  const removed: string[] = [];
  for (const { path, kind } of GENERATED_PATHS) {
    const at = join(dir, path);
    const found = await foundOnDisk(at);
    if (found === 'missing' || found === kind) continue;
    // unlink removes a link itself; rm of a real directory never descends through links inside it.
    if (found === 'dir') await rm(at, { recursive: true, force: true });
    else await unlink(at);
    removed.push(path);
  }
  return removed;
}

/**
 * Whether state.json would change by more than the lease epoch. A one-shot
 * `llmgw reconcile` is a new holder each run, so the epoch grows every run: on
 * its own that must not commit (a steady fleet commits nothing). The epoch is
 * carried by the lease ref itself; state.json takes the new value with the
 * next commit that happens anyway.
 */
function sameBesideEpoch(oldText: string | null, state: State, stateText: string): boolean {
  if (oldText === stateText) return true;
  if (oldText === null) return false;
  let old: State;
  try {
    old = parseState(oldText, STATE_FILE);
  } catch {
    return false;
  }
  if ((old.leaseEpoch ?? 0) > (state.leaseEpoch ?? 0)) return false;
  const { leaseEpoch: _old, ...oldRest } = old;
  const { leaseEpoch: _new, ...newRest } = state;
  return serializeState(oldRest) === serializeState(newRest);
}

/** Writes the files that matter; true when STATUS.md or state.json changed, or a link was replaced (and so all were written). */
export async function writeGenerated(repo: CheckoutFiles, g: Generated): Promise<boolean> {
  const { dir } = repo;
  const stateText = serializeState(g.state);
  const [oldStatus, oldState] = await Promise.all([readGeneratedOrNull(dir, STATUS_FILE), readGeneratedOrNull(dir, STATE_FILE)]);
  const replaced = await clearNonRegular(dir);
  // A tick killed between a write and its rename left a temporary file: gone before this one writes.
  // After clearNonRegular, so .llmgw/ is a real directory (or none) and nothing is removed through a link.
  await Promise.all(GENERATED_FILES.map((f) => removeDeadTemps(join(dir, f))));
  if (
    replaced.length === 0 &&
    oldStatus === g.status &&
    sameBesideEpoch(oldState, g.state, stateText) &&
    (await repo.changedFromHead([STATUS_FILE, STATE_FILE])).length === 0
  )
    return false;
  await writeAll(dir, g);
  return true;
}

/** Writes all three, changed or not (`llmgw apply`, which does not commit). A full disk is one WriteError line. */
export async function writeAll(dir: string, g: Generated): Promise<void> {
  await clearNonRegular(dir);
  const files: [string, string][] = [
    [STATUS_FILE, g.status],
    [STATE_FILE, serializeState(g.state)],
  ];
  if (g.snapshot) files.push([OBSERVED_FILE, stableJson(g.snapshot)]);
  for (const [file, text] of files) {
    await writeFileAtomic(join(dir, file), text, { moment: 'write' }).catch((err: unknown) => {
      const why = fsErrorText(err);
      throw why === null ? err : new WriteError(`cannot write ${file} in ${dir}: ${why}`, { cause: err });
    });
  }
}
