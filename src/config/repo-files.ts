// The files llmgw itself keeps in the config repo (docs/config.md), and how they
// are read and written. A missing state is an empty state; a broken one is a
// DataError naming the file, never a crash.

import { join } from 'node:path';
import { DataError } from '../errors.js';
import { readTextIfExists, stableJson } from '../util/fs.js';
import { emptyState, type State } from '../types/state.js';
import { lifecycleJson, parseLifecycle } from './lifecycle-file.js';
import type { Snapshot } from '../types/snapshot.js';

export const STATUS_FILE = 'STATUS.md';
export const OBSERVED_FILE = '.llmgw/observed.json';
export const STATE_FILE = '.llmgw/state.json';
/** The generated files, committed together (docs/config.md). */
export const GENERATED_FILES = [STATUS_FILE, OBSERVED_FILE, STATE_FILE] as const;
export const CONFIG_FILES = ['cluster.yaml', 'models.yaml'] as const;

function parseJson(text: string, file: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new DataError(`${file}: not valid JSON (${(err as Error).message})`, { cause: err });
  }
}

/** `.llmgw/state.json` of the repo, or an empty state when there is none. */
export async function readState(repoDir: string): Promise<State> {
  const file = join(repoDir, STATE_FILE);
  const text = await readTextIfExists(file);
  return text === null ? emptyState() : parseState(text, file);
}

/** A state file's text (from disk, or `git show REF:.llmgw/state.json`); `file` names it in errors. */
export function parseState(text: string, file: string): State {
  const raw = parseJson(text, file) as Partial<State> | null;
  if (raw === null || typeof raw !== 'object' || raw.version !== 1) {
    throw new DataError(`${file}: not an llmgw state file (expected an object with "version": 1)`);
  }
  const empty = emptyState();
  return {
    version: 1,
    unreachableSince: raw.unreachableSince ?? empty.unreachableSince,
    startFailures: raw.startFailures ?? empty.startFailures,
    notified: raw.notified ?? empty.notified,
    everRunning: raw.everRunning ?? empty.everRunning,
    ...lifecycleOf(raw.lifecycle),
  };
}

function lifecycleOf(raw: unknown): Pick<State, 'lifecycle'> {
  const lifecycle = parseLifecycle(raw);
  return lifecycle ? { lifecycle } : {};
}

/** State as committed: sorted keys and rows, so an unchanged state is unchanged bytes. */
export function serializeState(state: State): string {
  const sortRecord = (r: Record<string, string>) =>
    Object.fromEntries(Object.entries(r).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const failures = [...state.startFailures].sort(
    (a, b) => a.at.localeCompare(b.at) || a.model.localeCompare(b.model) || a.node.localeCompare(b.node),
  );
  return stableJson({
    version: 1,
    unreachableSince: sortRecord(state.unreachableSince),
    startFailures: failures,
    notified: sortRecord(state.notified),
    everRunning: [...new Set(state.everRunning)].sort(),
    ...(state.lifecycle ? { lifecycle: lifecycleJson(state.lifecycle) } : {}),
  });
}

/**
 * A snapshot file (`--observed FILE` or `.llmgw/observed.json`). Shape checks
 * against schemas/snapshot.schema.json happen where the schema validator is
 * loaded; this reads and does the cheap structural check.
 */
export async function readSnapshotFile(file: string): Promise<Snapshot> {
  const text = await readTextIfExists(file);
  if (text === null) throw new DataError(`${file}: no such file`);
  return parseSnapshot(text, file);
}

/** A snapshot's text (from disk, or `git show REF:.llmgw/observed.json`); `file` names it in errors. */
export function parseSnapshot(text: string, file: string): Snapshot {
  const raw = parseJson(text, file) as Partial<Snapshot> | null;
  if (raw === null || typeof raw !== 'object' || raw.version !== 1 || !Array.isArray(raw.nodes)) {
    throw new DataError(`${file}: not an llmgw snapshot (expected "version": 1 and "nodes")`);
  }
  // A hand-written snapshot may leave out when an unreachable node went away
  // and what it last said: both read as unknown.
  const nodes = raw.nodes.map((n) =>
    n.reachable ? n : { ...n, unreachableSince: n.unreachableSince ?? null, lastReport: n.lastReport ?? null },
  );
  return { version: 1, observedAt: raw.observedAt ?? '', nodes, routers: raw.routers ?? [] };
}
