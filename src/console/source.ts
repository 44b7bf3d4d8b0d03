// What the console shows, read from a checkout exactly as `llmgw status
// --observed .llmgw/observed.json --now <its observedAt>` reads it: the
// config, the committed snapshot and state, one fleet model, one status
// report (src/tick/render.ts) — the very report STATUS.md was rendered from,
// so the page and the file cannot disagree. Built once per version of those
// files (their size, mtime and inode) and kept until one changes; the config
// is loaded again only when cluster.yaml or models.yaml changed.
//
// Nothing here holds a secret: the config is loaded with an empty
// environment, so a `${VAR}` stays unread, and no page shows a webhook URL.

import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { loadConfig } from '../config/load-config.js';
import { readGeneratedFile, type RunFile } from '../store/paths.js';
import { OBSERVED_FILE, STATE_FILE, STATUS_FILE, parseSnapshot, parseState } from '../store/files.js';
import { DataError } from '../errors.js';
import { buildFleet } from '../fleet/index.js';
import { committedCounts } from '../tick/plan.js';
import type { StatusReport } from '../status/index.js';
import { statusOf } from '../tick/render.js';
import type { Config, ConfigProblem, LoadResult } from '../types/config.js';
import type { Fleet } from '../types/fleet.js';
import type { Snapshot } from '../types/snapshot.js';
import { emptyState, type State } from '../types/state.js';
import { formatSchemaIssues, getValidator } from '../util/schema.js';

const WATCHED = ['cluster.yaml', 'models.yaml', OBSERVED_FILE, STATE_FILE, STATUS_FILE] as const;

export type ConsoleData =
  | { kind: 'fleet'; config: Config; fleet: Fleet; report: StatusReport; state: State }
  /** The config on disk is invalid: nothing can be planned; STATUS.md keeps the last summary. */
  | { kind: 'invalid'; problems: ConfigProblem[]; statusMd: string | null }
  /** Valid config, but no snapshot yet (a repo never reconciled), or one that cannot be read. */
  | { kind: 'unobserved'; config: Config; why: string };

export interface Loaded {
  /** Changes whenever any file it was read from changes: the pages' ETag and refresh signal. */
  version: string;
  data: ConsoleData;
  /** How long reading and building took (ms), for the bench and the page footer. */
  buildMs: number;
}

interface Stamp {
  file: string;
  key: string;
}

async function stamps(dir: string): Promise<Stamp[]> {
  return Promise.all(
    WATCHED.map((file) =>
      stat(join(dir, file)).then(
        (st) => ({ file, key: `${file}:${st.size}:${st.mtimeMs}:${st.ino}` }),
        () => ({ file, key: `${file}:-` }),
      ),
    ),
  );
}

function digest(keys: string[]): string {
  return createHash('sha256').update(keys.join('\n')).digest('hex').slice(0, 16);
}

function readGenerated(dir: string, file: RunFile): Promise<string | null> {
  // As every reader of llmgw's own files (docs/security.md): a regular file only, inside a real .llmgw/, under
  // its one size cap — the config is loaded again only when the YAML changes, so its check of these paths may be old.
  return readGeneratedFile(dir, file, file);
}

/** A value kept until the stamps it was read under change. */
interface Memo<T> {
  key: string;
  value: T;
}

/**
 * Reads the checkout into what the pages show, reusing what did not change:
 * a tick rewrites the snapshot and state, rarely the config, whose load
 * (YAML, schema, hostlists) is the dearest part. Never throws for a bad file:
 * it becomes what the page says.
 */
export function createReader(dir: string, displayDir: string): (stamps: Stamp[]) => Promise<ConsoleData> {
  let config: Memo<LoadResult> | null = null;
  let snapshot: Memo<Snapshot | DataError | null> | null = null;
  const keyOf = (st: Stamp[], files: readonly string[]) =>
    st
      .filter((x) => files.includes(x.file))
      .map((x) => x.key)
      .join('|');
  return async (st) => {
    const configKey = keyOf(st, ['cluster.yaml', 'models.yaml']);
    if (config?.key !== configKey) config = { key: configKey, value: await loadConfig(dir, { env: {}, strictEnv: false, displayDir }) };
    const loaded = config.value;
    if (!loaded.ok) {
      const statusMd = await readGenerated(dir, STATUS_FILE).catch(() => null);
      return { kind: 'invalid', problems: loaded.errors, statusMd };
    }
    const snapshotKey = keyOf(st, [OBSERVED_FILE]);
    if (snapshot?.key !== snapshotKey) snapshot = { key: snapshotKey, value: await readSnapshot(dir) };
    const snap = snapshot.value;
    if (snap === null) {
      return {
        kind: 'unobserved',
        config: loaded.config,
        why: `${OBSERVED_FILE} is not there yet: the fleet appears here once a first llmgw reconcile has observed it.`,
      };
    }
    if (snap instanceof DataError) return { kind: 'unobserved', config: loaded.config, why: snap.message };
    try {
      const stateText = await readGenerated(dir, STATE_FILE);
      const state = stateText === null ? emptyState() : parseState(stateText, STATE_FILE);
      // As STATUS.md: the committed snapshot judged at its own observation time.
      const fleet = buildFleet(committedCounts(loaded.config, state), snap, state, snap.observedAt);
      return { kind: 'fleet', config: loaded.config, fleet, report: statusOf(fleet, state), state };
    } catch (err) {
      if (!(err instanceof DataError)) throw err;
      return { kind: 'unobserved', config: loaded.config, why: err.message };
    }
  };
}

/** The snapshot, checked against its schema; null when there is none; a DataError when it cannot be used. */
async function readSnapshot(dir: string): Promise<Snapshot | DataError | null> {
  try {
    const text = await readGenerated(dir, OBSERVED_FILE);
    if (text === null) return null;
    const snapshot = parseSnapshot(text, OBSERVED_FILE);
    const checked = getValidator('snapshot')(snapshot);
    if (!checked.ok) return new DataError(`${OBSERVED_FILE}: not a valid snapshot: ${formatSchemaIssues(checked.errors)}`);
    return snapshot;
  } catch (err) {
    if (err instanceof DataError) return err;
    throw err;
  }
}

/** One read of the checkout, nothing reused (tests, one-off callers). */
export async function readConsoleData(dir: string, displayDir: string): Promise<ConsoleData> {
  return createReader(dir, displayDir)(await stamps(dir));
}

export interface Source {
  /** The data for this moment: rebuilt only when a watched file changed since the last call. */
  current(): Promise<Loaded>;
  /** The version alone (cheap: a few stat calls), for the refresh endpoint. */
  version(): Promise<string>;
}

export function createSource(dir: string, displayDir: string): Source {
  const read = createReader(dir, displayDir);
  let last: Loaded | null = null;
  let building: Promise<Loaded> | null = null;
  return {
    version: async () => digest((await stamps(dir)).map((x) => x.key)),
    async current() {
      const st = await stamps(dir);
      const version = digest(st.map((x) => x.key));
      if (last !== null && last.version === version) return last;
      // One build at a time: concurrent requests of a new version share it.
      building ??= (async () => {
        const started = performance.now();
        const data = await read(st);
        return { version, data, buildMs: performance.now() - started };
      })().finally(() => (building = null));
      last = await building;
      return last;
    },
  };
}
