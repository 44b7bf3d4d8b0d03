// All the reading `status` and `plan` do, in one short async function: the
// config, the fleet (a snapshot file, or what the tick's observe phase gathers
// over SSH), state.json and "now". Everything after the observe is pure.

import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { loadConfig } from '../config/load-config.js';
import { strictExceptNotify } from '../config/env-vars.js';
import { readSnapshotFile } from '../store/files.js';
import { ConfigError, DataError, UsageError, formatProblem } from '../errors.js';
import type { Config, ConfigProblem } from '../types/config.js';
import type { Snapshot } from '../types/snapshot.js';
import type { State } from '../types/state.js';
import { committedState, previousRun } from '../store/read.js';
import { createProgressLine } from '../gather/progress.js';
import type { Gather } from '../tick/run.js';
import type { Io } from './io.js';

export interface FleetInputs {
  config: Config;
  /** The snapshot file's fleet, or the fleet to gather now (the tick's observe phase does: src/tick/run.ts). */
  fleet: Snapshot | Gather;
  state: State;
  now: string;
  warnings: ConfigProblem[];
  /** Close what gathering opened (the SSH transport, the progress line); nothing for a snapshot file. */
  done(): Promise<void>;
}

/** Whether `text` is an ISO time with a date, a time and a zone, that parses: what `--now`, `--since` and `--until` take. */
export function isIsoTime(text: string): boolean {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(text) && !Number.isNaN(Date.parse(text));
}

/** `--now` as given: an ISO time with a date and a time, or a UsageError. */
export function parseNow(text: string): string {
  if (!isIsoTime(text)) throw new UsageError(`--now ${JSON.stringify(text)}: expected an ISO time such as 2026-11-29T08:00:00Z`);
  return text;
}

/** `--repo DIR` resolved; a missing directory is one usage line (`DIR: no such directory`), not two missing files. */
export async function resolveRepoDir(io: Io, repo: string): Promise<string> {
  const dir = resolve(io.cwd, repo);
  const isDir = await stat(dir).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (!isDir) throw new UsageError(`${repo}: no such directory`);
  return dir;
}

/** A snapshot file, checked against schemas/snapshot.schema.json: a bad one is a DataError, never a crash later. */
export async function readObserved(file: string, shownAs: string): Promise<Snapshot> {
  return readSnapshotFile(file).catch((err: unknown) => {
    if (err instanceof DataError) throw new DataError(err.message.replace(file, shownAs), { cause: err });
    throw err;
  });
}

/** The repo's state.json; a broken one, or one that is not a regular file (never read through a link), is a warning on stderr and an empty state. */
function repoState(repoDir: string, io: Io): Promise<State> {
  return committedState(repoDir, (m) => void io.stderr.write(`warning: ${m}\n`));
}

/** A promise whose rejection waits to be awaited, instead of going unhandled meanwhile. */
function settle<T>(p: Promise<T> | undefined): Promise<T> | undefined {
  p?.catch(() => undefined);
  return p;
}

export async function readFleetInputs(opts: { repo: string; observed?: string; now?: string; io: Io }): Promise<FleetInputs> {
  const { io } = opts;
  // Validated first: a typo in --now should not wait for a config load or SSH.
  const now = opts.now === undefined ? new Date().toISOString() : parseNow(opts.now);
  const repoDir = await resolveRepoDir(io, opts.repo);
  // The files are read while the config loads; a bad config is still reported first.
  const fleetFiles = settle(
    opts.observed === undefined ? undefined : Promise.all([readObserved(resolve(io.cwd, opts.observed), opts.observed), repoState(repoDir, io)]),
  );
  // Reading a snapshot file needs no secrets (PR CI has none); gathering live
  // does need the ssh settings' ${VAR}s, though still not the webhooks'.
  const strictEnv = opts.observed === undefined ? strictExceptNotify : false;
  const loaded = await loadConfig(repoDir, { env: io.env, strictEnv, displayDir: opts.repo });
  for (const w of loaded.warnings) io.stderr.write(`warning: ${formatProblem(w)}\n`);
  if (!loaded.ok) throw new ConfigError('the config is invalid', loaded.errors);
  if (opts.observed === undefined) {
    const live = await gatherLive(loaded.config, repoDir, io);
    return { config: loaded.config, fleet: live.gather, state: live.state, now, warnings: loaded.warnings, done: live.done };
  }
  const files = await fleetFiles;
  if (files === undefined) throw new TypeError('the observed files were not read');
  const [snapshot, state] = files;
  return { config: loaded.config, fleet: snapshot, state, now, warnings: loaded.warnings, done: () => Promise.resolve() };
}

/**
 * What gathering the fleet live needs: the repo's previous snapshot and state
 * (so unreachable-since times carry over), an SSH transport and, on a
 * terminal, a progress line on stderr. `llmgw gather`, and `status`/`plan`
 * without --observed.
 */
export async function gatherLive(
  config: Config,
  repoDir: string,
  io: Pick<Io, 'env' | 'stderr'>,
  opts: { keepAlive?: boolean } = {},
): Promise<{ gather: Gather; state: State; done: () => Promise<void> }> {
  const warn = (m: string): void => void io.stderr.write(`warning: ${m}\n`);
  const { previous, state } = await previousRun(repoDir, warn);
  // Loaded only here: commands that never touch SSH never load ssh2.
  const { createSshTransport } = await import('../gather/ssh-transport.js');
  const transport = createSshTransport(config.cluster.ssh, { env: io.env, onWarning: warn, ...(opts.keepAlive ? { keepAlive: true } : {}) });
  const progress = createProgressLine(io.stderr);
  const done = async (): Promise<void> => {
    progress.done();
    await transport.close();
  };
  return { gather: { transport, previous, onProgress: (p) => progress.update(p) }, state, done };
}
