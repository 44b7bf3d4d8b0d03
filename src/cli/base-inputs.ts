// All the reading `llmgw plan --base REF` does (docs/commands.md): the
// branch's config from the working tree, and everything else from REF —
// the snapshot, state.json, STATUS.md and REF's own config — so a PR that edits
// llmgw's generated files cannot change what its plan says (it gets a warning
// instead). Everything after this is pure.

import { resolve } from 'node:path';
import { loadConfig, parseConfig } from '../config/load-config.js';
import { CONFIG_FILES, OBSERVED_FILE, STATE_FILE, STATUS_FILE, parseSnapshot, stateOrFresh } from '../store/files.js';
import { ConfigError, DataError, GitError, UsageError, formatProblem } from '../errors.js';
import { openConfigRepo, type TreeReader } from '../git/config-repo.js';
import { runFileAt } from '../store/read.js';
import type { Config } from '../types/config.js';
import type { Snapshot } from '../types/snapshot.js';
import type { State } from '../types/state.js';
import { parseNow, readObserved, resolveRepoDir } from './fleet-inputs.js';
import type { Io } from './io.js';

export interface BaseInputs {
  /** The branch's config (the working tree's). */
  config: Config;
  /** REF's snapshot, or --observed; null when REF has none (a repo never reconciled). */
  snapshot: Snapshot | null;
  state: State;
  now: string;
  ref: string;
  /** REF's config; null when REF has none or it is invalid (then every action is this change's). */
  baseConfig: Config | null;
  /** REF:STATUS.md; null when REF has none. */
  baseStatus: string | null;
  warnings: string[];
}

async function checkout(dir: string, io: Io): Promise<TreeReader> {
  return openConfigRepo({ dir, env: io.env }).catch((err: unknown) => {
    if (err instanceof GitError) throw new UsageError(`--base needs a git checkout: ${err.message}`);
    throw err;
  });
}

/** REF's config, or null and why not: PR CI must plan even when the base branch's own config is broken. */
function baseConfigOf(ref: string, cluster: string | null, models: string | null): { config: Config | null; warning: string | null } {
  if (cluster === null || models === null) {
    return { config: null, warning: `${ref} has no cluster.yaml and models.yaml: every action is counted as this change's` };
  }
  const loaded = parseConfig(
    { cluster: { name: `${ref}:cluster.yaml`, text: cluster }, models: { name: `${ref}:models.yaml`, text: models } },
    { env: {}, strictEnv: false },
  );
  if (loaded.ok) return { config: loaded.config, warning: null };
  const first = loaded.errors[0] ? ` (${formatProblem(loaded.errors[0])})` : '';
  return { config: null, warning: `the config on ${ref} is invalid${first}: every action is counted as this change's` };
}

/** REF's snapshot; a broken one is a warning and counts as none (llmgw wrote it; a person's edit may have broken it). */
function parseBaseSnapshot(text: string, shownAs: string, warnings: string[]): Snapshot | null {
  try {
    return parseSnapshot(text, shownAs);
  } catch (err) {
    if (!(err instanceof DataError)) throw err;
    warnings.push(`${err.message}: planned as if the fleet had not been observed yet`);
    return null;
  }
}

export async function readBaseInputs(opts: { repo: string; base: string; observed?: string; now?: string; io: Io }): Promise<BaseInputs> {
  const { io, base: ref } = opts;
  const now = opts.now === undefined ? new Date().toISOString() : parseNow(opts.now);
  const dir = await resolveRepoDir(io, opts.repo);
  const repo = await checkout(dir, io);
  await repo.resolveCommit(ref);
  // Reading snapshot files needs no secrets: PR CI has none.
  const loaded = await loadConfig(dir, { env: io.env, strictEnv: false, displayDir: opts.repo });
  for (const w of loaded.warnings) io.stderr.write(`warning: ${formatProblem(w)}\n`);
  if (!loaded.ok) throw new ConfigError('the config is invalid', loaded.errors);

  const [observedText, stateText, baseStatus, cluster, models, touched] = await Promise.all([
    opts.observed === undefined ? runFileAt(repo, ref, OBSERVED_FILE) : Promise.resolve(null),
    runFileAt(repo, ref, STATE_FILE),
    runFileAt(repo, ref, STATUS_FILE),
    repo.fileAt(ref, CONFIG_FILES[0]),
    repo.fileAt(ref, CONFIG_FILES[1]),
    repo.changedSince(ref, [STATUS_FILE, '.llmgw']),
  ]);
  const warnings: string[] = [];
  if (touched.length > 0) {
    warnings.push(`this branch changes ${touched.join(', ')} against ${ref}: llmgw writes these files, and this plan uses ${ref}'s copies, not the branch's`);
  }
  const { config: baseConfig, warning } = baseConfigOf(ref, cluster, models);
  const snapshot =
    opts.observed !== undefined
      ? await readObserved(resolve(io.cwd, opts.observed), opts.observed)
      : observedText === null
        ? null
        : parseBaseSnapshot(observedText, `${ref}:${OBSERVED_FILE}`, warnings);
  // Without a snapshot there are no actions to count as anything.
  if (warning !== null && snapshot !== null) warnings.push(warning);
  const state = stateOrFresh(stateText, `${ref}:${STATE_FILE}`, (m) => warnings.push(m));
  return { config: loaded.config, snapshot, state, now, ref, baseConfig, baseStatus, warnings };
}
