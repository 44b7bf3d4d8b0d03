// What a git process killed mid-operation leaves in a checkout, and putting it
// right before a tick uses the checkout (docs/notes/crash.md). A `kill -9` of
// a reconciler (its git included) can leave `index.lock`, `HEAD.lock` or a
// ref's lock — after which every later git call fails ("Unable to create
// '…/index.lock': File exists", "Cannot autostash") — or a rebase or merge
// half done. A lock is removed only when it is older than the git timeout
// (no call of ours runs that long: they are killed) and no live git process
// works in the checkout; an interrupted rebase or merge only when llmgw
// started it (its marker names a process that is gone) or the checkout is
// llmgw's own --workdir. A person's git in a --repo checkout is never touched.

import { existsSync, readFileSync, readdirSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { rm, unlink, writeFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { GitError } from '../errors.js';
import type { GitRunner } from './runner.js';

/** Marks a rebase or merge llmgw runs, so its leftovers can be told from a person's. */
export const OP_MARKER = 'llmgw-op';

export interface RepairContext {
  git: GitRunner;
  /** The top of the working tree. */
  top: string;
  /** Its git directory (absolute). */
  gitDir: string;
  /** Locks older than this are stale: llmgw's git calls are killed by then. */
  staleAfterMs: number;
  /** An llmgw-managed --workdir: nobody else works in it. */
  managed: boolean;
  log: (line: string) => void;
  now?: () => number;
}

const TOP_LOCKS = ['index.lock', 'HEAD.lock', 'ORIG_HEAD.lock', 'FETCH_HEAD.lock', 'MERGE_HEAD.lock', 'packed-refs.lock', 'config.lock', 'shallow.lock'];

function lockFiles(gitDir: string): string[] {
  const out = TOP_LOCKS.map((f) => join(gitDir, f)).filter((f) => existsSync(f));
  const walk = (dir: string, depth: number) => {
    if (depth > 16) return;
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const n of names) {
      const p = join(dir, n);
      if (n.endsWith('.lock')) out.push(p);
      else if (statSync(p, { throwIfNoEntry: false })?.isDirectory()) walk(p, depth + 1);
    }
  };
  walk(join(gitDir, 'refs'), 0);
  return out;
}

/** Whether a process is alive (EPERM: it is, just not ours to signal). */
export function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Is some live git process working in this checkout? From /proc (Linux): a
 * process named git* whose working directory is inside it. null when that
 * cannot be known (no /proc).
 */
export function gitRunsIn(top: string, gitDir: string): boolean | null {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((n) => /^\d+$/.test(n));
  } catch {
    return null;
  }
  const roots = [top, gitDir].map((p) => {
    try {
      return realpathSync(p);
    } catch {
      return p;
    }
  });
  const inside = (p: string) => roots.some((r) => p === r || p.startsWith(r + sep));
  for (const pid of pids) {
    if (Number(pid) === process.pid) continue;
    try {
      const argv0 = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] ?? '';
      const name = argv0.split('/').pop() ?? '';
      if (!name.startsWith('git')) continue;
      if (inside(readlinkSync(`/proc/${pid}/cwd`))) return true;
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return false;
}

function age(path: string, now: number): number {
  const st = statSync(path, { throwIfNoEntry: false });
  return st ? now - st.mtimeMs : 0;
}

/** The marker of an llmgw rebase or merge: whether it names a process that is gone. */
function markerOfDeadLlmgw(gitDir: string): boolean {
  try {
    const m = JSON.parse(readFileSync(join(gitDir, OP_MARKER), 'utf8')) as { pid?: unknown };
    return typeof m.pid === 'number' && !alive(m.pid);
  } catch {
    return false;
  }
}

/** Write the marker before a rebase or merge; remove it after (also when it failed). */
export async function withOpMarker<T>(gitDir: string, op: string, body: () => Promise<T>): Promise<T> {
  const file = join(gitDir, OP_MARKER);
  await writeFile(file, JSON.stringify({ pid: process.pid, op, at: new Date().toISOString() }) + '\n');
  try {
    return await body();
  } finally {
    await unlink(file).catch(() => undefined);
  }
}

async function removeStaleLocks(ctx: RepairContext, now: number): Promise<void> {
  const locks = lockFiles(ctx.gitDir).filter((l) => age(l, now) >= ctx.staleAfterMs);
  if (locks.length === 0) return;
  const busy = gitRunsIn(ctx.top, ctx.gitDir);
  const names = locks.map((l) => relative(ctx.top, l) || l).join(', ');
  if (busy === true) return; // a git that runs this long is somebody's: its locks are live
  if (busy === null && !ctx.managed) {
    ctx.log(`warning: git lock ${names} is older than git.timeout, but whether a git process still holds it cannot be told here: remove it by hand if none does`);
    return;
  }
  for (const l of locks) {
    const mtime = new Date(statSync(l, { throwIfNoEntry: false })?.mtimeMs ?? now).toISOString();
    await unlink(l).then(
      () => ctx.log(`removed a stale git lock ${relative(ctx.top, l) || l} (from ${mtime}; no git process works in ${ctx.top})`),
      () => undefined,
    );
  }
}

/** A rebase or merge left half done: undone when it is llmgw's, a GitError naming what to do otherwise. */
async function undoInterrupted(ctx: RepairContext): Promise<void> {
  const rebasing = ['rebase-merge', 'rebase-apply'].some((d) => existsSync(join(ctx.gitDir, d)));
  const merging = existsSync(join(ctx.gitDir, 'MERGE_HEAD'));
  const autostash = existsSync(join(ctx.gitDir, 'MERGE_AUTOSTASH'));
  if (!rebasing && !merging && !autostash) return;
  const ours = ctx.managed || markerOfDeadLlmgw(ctx.gitDir);
  if (!ours || gitRunsIn(ctx.top, ctx.gitDir) === true) {
    const what = rebasing ? 'a rebase' : 'a merge';
    const how = rebasing ? 'git rebase --continue, or git rebase --abort' : 'git merge --continue, or git merge --abort';
    throw new GitError(`${what} is in progress in ${ctx.top} that llmgw did not start: finish it (${how}); llmgw changes nothing there meanwhile`);
  }
  if (rebasing) {
    // --abort puts back the branch and re-applies the autostash (a person's uncommitted edits).
    const aborted = await ctx.git.tryRun(['rebase', '--abort']);
    if (!aborted.ok) await ctx.git.tryRun(['rebase', '--quit']);
    ctx.log(`undid a rebase an llmgw process left half done in ${ctx.top}${aborted.ok ? '' : ' (uncommitted edits it held are in git stash list)'}`);
  } else if (merging) {
    await ctx.git.tryRun(['merge', '--abort']);
    ctx.log(`undid a merge an llmgw process left half done in ${ctx.top}`);
  } else {
    // A fast-forward with --autostash killed before it put the edits back: they go to the stash list, not lost.
    await ctx.git.tryRun(['merge', '--quit']);
    ctx.log(`a fast-forward an llmgw process left half done in ${ctx.top} held uncommitted edits: they are in git stash list (git stash pop restores them)`);
  }
  await rm(join(ctx.gitDir, OP_MARKER), { force: true });
}

/** Put a checkout right after a killed git: stale locks, then a half-done rebase or merge. Throws GitError when a person must act. */
export async function repairCheckout(ctx: RepairContext): Promise<void> {
  const now = (ctx.now ?? Date.now)();
  await removeStaleLocks(ctx, now);
  await undoInterrupted(ctx);
}
