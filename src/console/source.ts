// What the console shows, read from a checkout exactly as `llmgw status
// --observed .llmgw/observed.json --now <its observedAt>` reads it: the
// config, the committed snapshot and state, one fleet model, one status
// report (src/tick/render.ts) — the very report STATUS.md was rendered from,
// so the page and the file cannot disagree. Built once per version of those
// files (their size, mtime and inode) and kept until one changes.
//
// Nothing here holds a secret: the config is loaded with an empty
// environment, so a `${VAR}` stays unread, and no page shows a webhook URL.

import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { loadConfig } from '../config/load-config.js';
import { OBSERVED_FILE, STATE_FILE, STATUS_FILE, parseSnapshot, parseState } from '../config/repo-files.js';
import { DataError } from '../errors.js';
import { buildFleet } from '../fleet/index.js';
import type { StatusReport } from '../status/index.js';
import { statusOf } from '../tick/render.js';
import type { Config, ConfigProblem } from '../types/config.js';
import type { Fleet } from '../types/fleet.js';
import { emptyState, type State } from '../types/state.js';
import { readRegularFile } from '../util/regular-file.js';
import { formatSchemaIssues, getValidator } from '../util/schema.js';

/** The committed snapshot of a fleet of some thousands of nodes is tens of MiB; past this it is not read. */
const MAX_SNAPSHOT_BYTES = 256 * 1024 * 1024;
const MAX_STATUS_BYTES = 16 * 1024 * 1024;
const WATCHED = ['cluster.yaml', 'models.yaml', OBSERVED_FILE, STATE_FILE, STATUS_FILE] as const;

export type ConsoleData =
  | { kind: 'fleet'; config: Config; fleet: Fleet; report: StatusReport; state: State; warnings: string[] }
  /** The config on disk is invalid: nothing can be planned; STATUS.md keeps the last summary. */
  | { kind: 'invalid'; problems: ConfigProblem[]; statusMd: string | null; warnings: string[] }
  /** Valid config, but no snapshot yet (a repo never reconciled), or one that cannot be read. */
  | { kind: 'unobserved'; config: Config; why: string; warnings: string[] };

export interface Loaded {
  /** Changes whenever any file it was read from changes: the pages' ETag and refresh signal. */
  version: string;
  data: ConsoleData;
  /** How long reading and building took (ms), for the bench and the page footer. */
  buildMs: number;
}

async function fingerprint(dir: string): Promise<string> {
  const parts = await Promise.all(
    WATCHED.map((f) =>
      stat(join(dir, f)).then(
        (s) => `${f}:${s.size}:${s.mtimeMs}:${s.ino}`,
        () => `${f}:-`,
      ),
    ),
  );
  return createHash('sha256').update(parts.join('\n')).digest('hex').slice(0, 16);
}

async function readGenerated(dir: string, file: string, max: number): Promise<string | null> {
  const r = await readRegularFile(join(dir, file), max);
  if (r.ok) return r.text;
  if (r.why === 'missing') return null;
  throw new DataError(`${file}: ${r.why === 'too-large' ? 'too large to read' : r.why === 'error' ? r.code : `is a ${r.why === 'symlink' ? 'symbolic link' : r.why}`}; llmgw reads only regular files`);
}

/** One read of the checkout into what the pages show. Never throws for a bad file: it becomes what the page says. */
export async function readConsoleData(dir: string, displayDir: string): Promise<ConsoleData> {
  const loaded = await loadConfig(dir, { env: {}, strictEnv: false, displayDir });
  if (!loaded.ok) {
    const statusMd = await readGenerated(dir, STATUS_FILE, MAX_STATUS_BYTES).catch(() => null);
    return { kind: 'invalid', problems: loaded.errors, statusMd, warnings: [] };
  }
  const config = loaded.config;
  const warnings: string[] = [];
  let snapshotText: string | null;
  try {
    snapshotText = await readGenerated(dir, OBSERVED_FILE, MAX_SNAPSHOT_BYTES);
  } catch (err) {
    if (!(err instanceof DataError)) throw err;
    return { kind: 'unobserved', config, why: err.message, warnings };
  }
  if (snapshotText === null) {
    return { kind: 'unobserved', config, why: `${OBSERVED_FILE} is not there yet: the fleet appears here once a first llmgw reconcile has observed it.`, warnings };
  }
  let state = emptyState();
  try {
    const snapshot = parseSnapshot(snapshotText, OBSERVED_FILE);
    const checked = getValidator('snapshot')(snapshot);
    if (!checked.ok) throw new DataError(`${OBSERVED_FILE}: not a valid snapshot: ${formatSchemaIssues(checked.errors)}`);
    const stateText = await readGenerated(dir, STATE_FILE, MAX_STATUS_BYTES);
    if (stateText !== null) state = parseState(stateText, STATE_FILE);
    // As STATUS.md: the committed snapshot judged at its own observation time.
    const fleet = buildFleet(config, snapshot, state, snapshot.observedAt);
    return { kind: 'fleet', config, fleet, report: statusOf(fleet, state), state, warnings };
  } catch (err) {
    if (!(err instanceof DataError)) throw err;
    return { kind: 'unobserved', config, why: err.message, warnings };
  }
}

export interface Source {
  /** The data for this moment: rebuilt only when a watched file changed since the last call. */
  current(): Promise<Loaded>;
  /** The version alone (cheap: a few stat calls), for the refresh endpoint. */
  version(): Promise<string>;
}

export function createSource(dir: string, displayDir: string): Source {
  let last: Loaded | null = null;
  let building: Promise<Loaded> | null = null;
  return {
    version: () => fingerprint(dir),
    async current() {
      const version = await fingerprint(dir);
      if (last !== null && last.version === version) return last;
      // One build at a time: concurrent requests of a new version share it.
      building ??= (async () => {
        const started = performance.now();
        const data = await readConsoleData(dir, displayDir);
        return { version, data, buildMs: performance.now() - started };
      })().finally(() => (building = null));
      last = await building;
      return last;
    },
  };
}
