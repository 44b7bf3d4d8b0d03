// Reading llmgw's commits for the ledger (docs/commands.md#llmgw-report): the I/O
// half of `llmgw report`. Two git processes however long the history: one
// `git log` for which commits are ticks and when, one `git cat-file --batch`
// for the four files of each commit the range needs. A year of hourly ticks
// is ~8,800 commits; one process per file would be 35,000 of them.
//
// cluster.yaml and models.yaml rarely change, and state.json often repeats:
// each blob is parsed once, by its object id.

import { parseConfig } from '../config/load-config.js';
import { OBSERVED_FILE, STATE_FILE, parseSnapshot, parseState } from '../store/files.js';
import { DataError, GitError } from '../errors.js';
import type { GitRunner } from '../git/runner.js';
import { configuredEmailAt, isTickCommit } from '../git/tick-commit.js';
import type { Config } from '../types/config.js';
import { emptyState, type State } from '../types/state.js';
import { MAX_SPAN_MS, countCommit, type CountedCommit, type LedgerRange } from './ledger.js';

export interface TickRef {
  sha: string;
  /** Author time (ISO): when the tick made it; a rebase before its push keeps it. */
  time: string;
}

export interface LedgerHistory {
  /** Each counted as it is read: a year of parsed snapshots is never held at once. */
  commits: CountedCommit[];
  /** One line per commit that could not be counted (a broken file in it): its time goes to the commit before. */
  warnings: string[];
}

const SEP = '\u001f';
const END = '\u001e';

/**
 * `git log --name-only` output: the ticks, oldest first. Paths outside the
 * config directory (`prefix`) keep a commit from being a tick, as any file
 * a person wrote does.
 */
export function parseTickLog(out: string, prefix: string, email?: string): TickRef[] {
  const ticks: TickRef[] = [];
  for (const rec of out.split(END)) {
    const [head, ...paths] = rec.replace(/^\n+/, '').split('\n');
    if (!head) continue;
    const [sha = '', time = '', author = ''] = head.split(SEP);
    const touched = paths.filter((f) => f !== '').map((f) => (f.startsWith(prefix) ? f.slice(prefix.length) : `/${f}`));
    if (sha !== '' && time !== '' && isTickCommit(author, touched, email)) ticks.push({ sha, time });
  }
  return ticks.reverse();
}

/** The ticks whose fleet the range needs: from 25 h before `since` (one may vouch into it) to the first at or after `until` (it ends the last interval). */
export function ticksFor(ticks: readonly TickRef[], range: LedgerRange): TickRef[] {
  const lo = Date.parse(range.since) - MAX_SPAN_MS;
  const hi = Date.parse(range.until);
  const sorted = [...ticks].sort((a, b) => Date.parse(a.time) - Date.parse(b.time));
  const first = sorted.findIndex((t) => Date.parse(t.time) >= lo);
  if (first < 0) return sorted.slice(-1);
  const after = sorted.findIndex((t) => Date.parse(t.time) >= hi);
  // The tick before the window too: whether it vouches that far is the ledger's question, and the time before it is unobserved either way.
  return sorted.slice(Math.max(0, first - 1), after < 0 ? sorted.length : after + 1);
}

interface Blob {
  oid: string;
  text: string;
}

/** `git cat-file --batch` output for `names`, in order: each a blob, or null for a name that is missing. */
export function parseBatch(out: Buffer, names: readonly string[]): (Blob | null)[] {
  const blobs: (Blob | null)[] = [];
  let at = 0;
  for (const name of names) {
    const nl = out.indexOf(10, at);
    if (nl < 0) throw new GitError(`git cat-file: output ended before ${name}`);
    const header = out.subarray(at, nl).toString('utf8');
    at = nl + 1;
    const m = /^([0-9a-f]+) (\w+) (\d+)$/.exec(header);
    if (!m?.[1]) {
      // `<name> missing`, `<name> ambiguous`: no such file at that commit.
      blobs.push(null);
      continue;
    }
    const size = Number(m[3]);
    blobs.push(m[2] === 'blob' ? { oid: m[1], text: out.subarray(at, at + size).toString('utf8') } : null);
    at += size + 1;
  }
  return blobs;
}

const FILES = ['cluster.yaml', 'models.yaml', OBSERVED_FILE, STATE_FILE] as const;

/** llmgw's commits on HEAD that `range` needs, each with its fleet's files parsed. */
export async function readLedgerHistory(git: GitRunner, range: LedgerRange): Promise<LedgerHistory> {
  const top = await git.tryRun(['rev-parse', '--show-prefix']);
  if (!top.ok) throw new DataError(`${git.dir}: not a git checkout (${top.detail})`);
  const prefix = top.out;
  const head = await git.tryRun(['rev-parse', '--verify', '--quiet', 'HEAD']);
  if (!head.ok) return { commits: [], warnings: [] };
  const log = await git.run(
    ['-c', 'core.quotePath=false', 'log', `--format=${END}%H${SEP}%aI${SEP}%ae`, '--name-only', '--no-renames', '--full-diff', 'HEAD', '--', '.'],
    'git log',
  );
  const ticks = ticksFor(parseTickLog(log, prefix, await configuredEmailAt(git, prefix, 'HEAD')), range);
  if (ticks.length === 0) return { commits: [], warnings: [] };

  const names = ticks.flatMap((t) => FILES.map((f) => `${t.sha}:${prefix}${f}`));
  const out = await git.bytes(['cat-file', '--batch'], names.join('\n') + '\n');
  if (out === null) throw new GitError('git cat-file --batch failed');
  const blobs = parseBatch(out, names);

  const configs = new Map<string, Config | null>();
  const states = new Map<string, State | null>();
  const warnings: string[] = [];
  const commits: CountedCommit[] = [];
  let lastConfig: Config | null = null;
  ticks.forEach((t, i) => {
    const [cluster, models, observed, stateBlob] = blobs.slice(i * 4, i * 4 + 4);
    const short = t.sha.slice(0, 12);
    let config = lastConfig;
    if (cluster && models) {
      const key = `${cluster.oid} ${models.oid}`;
      if (!configs.has(key)) {
        const r = parseConfig({ cluster: { name: 'cluster.yaml', text: cluster.text }, models: { name: 'models.yaml', text: models.text } });
        configs.set(key, r.ok ? r.config : null);
      }
      // A commit whose config is invalid applied nothing: the fleet it saw was placed by the last valid one.
      config = configs.get(key) ?? lastConfig;
    }
    if (config === null) return void warnings.push(`${short} (${t.time}): no valid cluster.yaml and models.yaml yet; not counted`);
    lastConfig = config;
    if (!observed) return void warnings.push(`${short} (${t.time}): no ${OBSERVED_FILE}; not counted`);
    let state: State | null = emptyState();
    if (stateBlob) {
      if (!states.has(stateBlob.oid))
        states.set(
          stateBlob.oid,
          tryParse(() => parseState(stateBlob.text, STATE_FILE)),
        );
      state = states.get(stateBlob.oid) ?? null;
    }
    const snapshot = tryParse(() => parseSnapshot(observed.text, OBSERVED_FILE));
    if (snapshot === null || state === null)
      return void warnings.push(`${short} (${t.time}): its ${snapshot === null ? OBSERVED_FILE : STATE_FILE} is not valid; not counted`);
    commits.push(countCommit({ time: t.time, snapshot, state, config }));
  });
  return { commits, warnings };
}

function tryParse<T>(f: () => T): T | null {
  try {
    return f();
  } catch (err) {
    if (err instanceof DataError) return null;
    throw err;
  }
}
