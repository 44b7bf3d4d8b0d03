// The last ticks and plans, from git history alone (docs/status.md): the
// reconciler keeps no other record. A tick is a commit of llmgw's, by the
// one rule of src/git/tick-commit.ts (its email, and only generated files
// touched — never its author's name); its plan,
// as far as history can tell, is what changed — the replicas that appeared,
// went or changed state between its snapshot and its parent's, and the diff of
// STATUS.md. Kept cheap: one `git log` per new HEAD, and a commit's details
// (immutable) read once and remembered.

import { OBSERVED_FILE, STATUS_FILE, parseSnapshot } from '../store/files.js';
import { createGitRunner, type GitRunner } from '../git/runner.js';
import { configuredEmailAt, isTickCommit } from '../git/tick-commit.js';
import type { Snapshot } from '../types/snapshot.js';

export interface Commit {
  sha: string;
  /** Committer time, ISO. */
  time: string;
  /** `name <email>`: the email is what tells llmgw's commits from a person's, so it is shown. */
  author: string;
  email: string;
  subject: string;
  /** Made by llmgw (a tick), not by a person: isTickCommit. */
  tick: boolean;
  /** Files it changed inside the config directory, relative to it. */
  files: string[];
}

export interface ReplicaChange {
  id: string;
  model: string;
  nodes: string[];
  /** State before and after; null where it did not exist. */
  from: string | null;
  to: string | null;
}

export interface CommitDetail {
  commit: Commit;
  /** Replicas started, stopped or changed state in this commit's snapshot; null when it holds none. */
  replicas: ReplicaChange[] | null;
  /** The unified diff of STATUS.md, or null when it did not change. */
  statusDiff: string | null;
}

export interface History {
  /** False when the directory is no git checkout: the pages say so. */
  readonly available: boolean;
  head(): Promise<string | null>;
  /** The last `n` commits touching the config directory, newest first. */
  recent(n: number): Promise<Commit[]>;
  /** A commit of the config directory's history, or null when `sha` names none. */
  detail(sha: string): Promise<CommitDetail | null>;
}

const SEP = '\u001f';
const END = '\u001e';
const CACHE = 64;

/** Name, email, then the subject last: it is the one field that may hold anything. */
const FORMAT = `--format=${END}%H${SEP}%cI${SEP}%an${SEP}%ae${SEP}%s`;

/**
 * `git log FORMAT --name-only --full-diff` of the config directory: every
 * file a commit touched, relative to the repo's root (`prefix` is the config
 * directory's), so a file outside the directory keeps a commit from being a
 * tick even though the page lists only the files inside.
 */
function parseLog(out: string, prefix: string, configured?: string): Commit[] {
  return out
    .split(END)
    .map((rec) => rec.replace(/^\n+/, ''))
    .filter((rec) => rec.trim() !== '')
    .map((rec) => {
      const [head, ...paths] = rec.split('\n');
      const [sha, time, name, email, subject] = (head ?? '').split(SEP);
      const touched = paths.filter((f) => f !== '').map((f) => (f.startsWith(prefix) ? f.slice(prefix.length) : `/${f}`));
      return {
        sha: sha ?? '',
        time: time ?? '',
        author: `${name ?? ''} <${email ?? ''}>`,
        email: email ?? '',
        subject: subject ?? '',
        tick: isTickCommit(email ?? '', touched, configured),
        files: touched.filter((f) => !f.startsWith('/')),
      };
    });
}

/** Every replica a snapshot knows of (reached nodes' reports, silent nodes' last ones), by id. */
function replicasOf(snapshot: Snapshot | null): Map<string, { model: string; nodes: string[]; state: string }> {
  const out = new Map<string, { model: string; nodes: string[]; state: string }>();
  for (const n of snapshot?.nodes ?? []) {
    const report = n.reachable ? n.report : n.lastReport;
    for (const r of report?.replicas ?? []) {
      const seen = out.get(r.id);
      if (seen) seen.nodes.push(n.name);
      else out.set(r.id, { model: r.model, nodes: [n.name], state: r.state });
    }
  }
  return out;
}

export function replicaChanges(before: Snapshot | null, after: Snapshot | null): ReplicaChange[] {
  const a = replicasOf(before);
  const b = replicasOf(after);
  const ids = [...new Set([...a.keys(), ...b.keys()])].sort();
  const out: ReplicaChange[] = [];
  for (const id of ids) {
    const x = a.get(id);
    const y = b.get(id);
    if (x && y && x.state === y.state) continue;
    const z = y ?? x;
    if (!z) continue; // ids are the keys of a and b: one of them has it
    out.push({ id, model: z.model, nodes: z.nodes, from: x?.state ?? null, to: y?.state ?? null });
  }
  return out;
}

async function snapshotAt(git: GitRunner, prefix: string, ref: string): Promise<Snapshot | null> {
  const r = await git.tryRun(['cat-file', 'blob', `${ref}:${prefix}${OBSERVED_FILE}`], { raw: true });
  if (!r.ok) return null;
  try {
    return parseSnapshot(r.out, OBSERVED_FILE);
  } catch {
    return null;
  }
}

export async function openHistory(dir: string): Promise<History> {
  // No environment: the console never needs credentials, and never asks for any.
  const git = createGitRunner(dir, { PATH: process.env.PATH, HOME: process.env.HOME });
  const inside = await git.tryRun(['rev-parse', '--show-prefix']);
  if (!inside.ok) {
    return { available: false, head: () => Promise.resolve(null), recent: () => Promise.resolve([]), detail: () => Promise.resolve(null) };
  }
  const prefix = inside.out;
  let logCache: { head: string; n: number; commits: Commit[] } | null = null;
  const details = new Map<string, CommitDetail>();

  async function head(): Promise<string | null> {
    const r = await git.tryRun(['rev-parse', '--verify', '--quiet', 'HEAD']);
    return r.ok && r.out !== '' ? r.out : null;
  }

  async function recent(n: number): Promise<Commit[]> {
    const h = await head();
    if (h === null) return [];
    if (logCache && logCache.head === h && logCache.n >= n) return logCache.commits.slice(0, n);
    const out = await git.tryRun(['log', `-n${n}`, FORMAT, '--name-only', '--full-diff', h, '--', '.']);
    const commits = out.ok ? parseLog(out.out, prefix, await configuredEmailAt(git, prefix, h)) : [];
    logCache = { head: h, n, commits };
    return commits;
  }

  async function detail(sha: string): Promise<CommitDetail | null> {
    if (!/^[0-9a-f]{7,40}$/.test(sha)) return null;
    const cached = details.get(sha);
    if (cached) return cached;
    const full = await git.tryRun(['rev-parse', '--verify', '--quiet', '--end-of-options', `${sha}^{commit}`]);
    if (!full.ok || full.out === '') return null;
    const log = await git.tryRun(['log', '-n1', FORMAT, '--name-only', '--full-diff', full.out, '--', '.']);
    const commit = log.ok ? parseLog(log.out, prefix, await configuredEmailAt(git, prefix, 'HEAD'))[0] : undefined;
    if (!commit || commit.sha !== full.out) return null;
    const parent = await git.tryRun(['rev-parse', '--verify', '--quiet', `${full.out}^`]);
    const [before, after, diff] = await Promise.all([
      parent.ok && parent.out !== '' ? snapshotAt(git, prefix, parent.out) : Promise.resolve(null),
      snapshotAt(git, prefix, full.out),
      git.tryRun(['diff-tree', '-p', '--no-color', '--no-commit-id', '--root', '-m', '--first-parent', '--relative', full.out, '--', STATUS_FILE], {
        raw: true,
      }),
    ]);
    const result: CommitDetail = {
      commit,
      replicas: after === null && before === null ? null : replicaChanges(before, after),
      statusDiff: diff.ok && diff.out.trim() !== '' ? diff.out : null,
    };
    const oldest = details.keys().next().value;
    if (details.size >= CACHE && oldest !== undefined) details.delete(oldest);
    details.set(sha, result);
    return result;
  }

  return { available: true, head, recent, detail };
}
