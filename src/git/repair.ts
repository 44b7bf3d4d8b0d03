// What a git process killed mid-operation leaves in a checkout, and putting it
// right before a tick uses the checkout (docs/operations.md#crash-only). A `kill -9` of
// a reconciler (its git included) can leave `index.lock`, `HEAD.lock` or a
// ref's lock — after which every later git call fails ("Unable to create
// '…/index.lock': File exists", "Cannot autostash") — or a rebase or merge
// half done. A lock is removed only when it is older than the git timeout
// (no call of ours runs that long: they are killed) and no live git process
// works in the checkout; an interrupted rebase or merge only when llmgw
// started it (its marker names a process that is gone) or the checkout is
// llmgw's own --workdir. A person's git in a --repo checkout is never touched.

import { existsSync, lstatSync, readFileSync, readdirSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { GitError } from '../errors.js';
import type { GitRunner } from './runner.js';
import { errnoCode } from '../util/errno.js';

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
  /** The branch the checkout follows (a killed rebase may not have written its name yet). */
  branch: string | null;
  log: (line: string) => void;
  now?: () => number;
}

/** Every `*.lock` at the top of the git directory (index, HEAD, next-index-<pid>, packed-refs, …) and under refs/. */
function lockFiles(gitDir: string): string[] {
  const out = readdirSync(gitDir)
    .filter((f) => f.endsWith('.lock'))
    .map((f) => join(gitDir, f));
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
    return errnoCode(err) === 'EPERM';
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

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8').trim() || null;
  } catch {
    return null;
  }
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
  const all = lockFiles(ctx.gitDir);
  let locks = all.filter((l) => age(l, now) >= ctx.staleAfterMs);
  // In llmgw's own workdir, after its own rebase or merge was killed (the marker
  // names a dead process), a younger lock is that git's too: nobody else works
  // there. Left until it ages, it fails the next rebase, and a rebase that fails
  // there means a fresh clone, its unpushed commits (and the events they sent) lost.
  const killed = ctx.managed && markerOfDeadLlmgw(ctx.gitDir) ? all.filter((l) => !locks.includes(l)) : [];
  if (locks.length === 0 && killed.length === 0) return;
  const busy = gitRunsIn(ctx.top, ctx.gitDir);
  if (busy === true) return; // a git that runs this long is somebody's: its locks are live
  if (busy === false) locks = [...locks, ...killed];
  if (locks.length === 0) return;
  const names = locks.map((l) => relative(ctx.top, l) || l).join(', ');
  if (busy === null && !ctx.managed) {
    ctx.log(
      `warning: git lock ${names} is older than git.timeout, but whether a git process still holds it cannot be told here: remove it by hand if none does`,
    );
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
  if (!rebasing && !merging && !autostash) return afterKilledFastForward(ctx);
  const ours = ctx.managed || markerOfDeadLlmgw(ctx.gitDir);
  if (!ours || gitRunsIn(ctx.top, ctx.gitDir) === true) {
    const what = rebasing ? 'a rebase' : 'a merge';
    const how = rebasing ? 'git rebase --continue, or git rebase --abort' : 'git merge --continue, or git merge --abort';
    throw new GitError(`${what} is in progress in ${ctx.top} that llmgw did not start: finish it (${how}); llmgw changes nothing there meanwhile`);
  }
  const what = rebasing ? 'rebase' : 'merge';
  const onto = rebasing
    ? (readText(join(ctx.gitDir, 'rebase-merge', 'onto')) ?? readText(join(ctx.gitDir, 'rebase-apply', 'onto')))
    : readText(join(ctx.gitDir, 'MERGE_HEAD'));
  // --abort puts back the branch and re-applies the autostash (a person's
  // uncommitted edits). A fast-forward killed half done has nothing to abort:
  // its autostash goes to the stash list.
  const undone = rebasing || merging ? await ctx.git.tryRun([what, '--abort']) : { ok: false as const, detail: 'a fast-forward cannot be aborted' };
  if (undone.ok) {
    ctx.log(`undid a ${what} an llmgw process left half done in ${ctx.top}`);
  } else if (ctx.managed) {
    // Killed too early for --abort (its state half written), or a fast-forward:
    // in llmgw's own workdir the branch still names what was committed; go back to it.
    const head = readText(join(ctx.gitDir, 'rebase-merge', 'head-name')) ?? readText(join(ctx.gitDir, 'rebase-apply', 'head-name'));
    const branch = head?.replace(/^refs\/heads\//, '') ?? ctx.branch;
    // Back to the branch before the operation is forgotten: when the checkout
    // is refused (the killed git's index.lock is still younger than the git
    // timeout), the rebase stays recorded and a later tick undoes it. Forgotten
    // first, it would leave a detached HEAD that looks clean, and the next
    // commits would be made and pushed from there, dropping the branch's own.
    if (branch !== null) await ctx.git.run(['checkout', '--quiet', '--force', branch], `going back to ${branch}`);
    await ctx.git.tryRun([what, '--quit']);
    await ctx.git.tryRun(['stash', 'clear']);
    ctx.log(`undid a ${what} an llmgw process left half done in ${ctx.top} (its own workdir: back to ${branch ?? 'HEAD'} as committed)`);
  } else if (!rebasing && !merging) {
    await ctx.git.tryRun(['merge', '--quit']);
    ctx.log(
      `warning: a fast-forward an llmgw process left half done in ${ctx.top} held uncommitted edits: they are in git stash list (git stash pop restores them)`,
    );
  } else {
    const how = rebasing ? 'git rebase --abort' : 'git merge --abort';
    throw new GitError(
      `an llmgw ${what} was killed half done in ${ctx.top} and '${how}' cannot undo it (${undone.detail}): set it right by hand; your uncommitted edits may be in git stash list`,
    );
  }
  await removeCheckoutLeftovers(ctx, onto);
  await rm(join(ctx.gitDir, OP_MARKER), { force: true });
}

/** A file cut short larger than this is left alone: its blob is not read to compare (a config repo's files are small). */
const MAX_PREFIX_CHECK = 16 * 1024 * 1024;

/**
 * Files a killed checkout of `onto` wrote before it could record them in the
 * index: untracked now, at a path `onto` has, with exactly its content or,
 * for the one file whose write the kill cut short, the start of it (empty,
 * or a few blocks). The undo leaves them (it only restores what the index
 * knows), and the next rebase would stop at them ("untracked working tree
 * files would be overwritten"), which in llmgw's own workdir means a fresh
 * clone and its unpushed commits lost. Each is a copy of what git holds, or
 * of its start: removing it loses nothing. Any other untracked file is left
 * alone.
 */
async function removeCheckoutLeftovers(ctx: RepairContext, onto: string | null): Promise<void> {
  if (onto === null || !/^[0-9a-f]{40,64}$/.test(onto)) return;
  // Paths from the top of the working tree on both sides (`:/`, --full-tree): a config dir may be a subdirectory.
  const others = await ctx.git.tryRun(['ls-files', '-z', '--others', '--full-name', '--', ':/'], { raw: true });
  if (!others.ok || others.out === '') return;
  const untracked = new Set(others.out.split('\0').filter((p) => p !== ''));
  // -l: each blob's size, so a file cut short is told by its length before any content is read.
  const listed = await ctx.git.tryRun(['ls-tree', '-r', '-z', '-l', '--full-tree', onto], { raw: true });
  if (!listed.ok) return;
  const whole = new Map<string, string>();
  const cut: { path: string; sha: string; size: number }[] = [];
  for (const line of listed.out.split('\0')) {
    // `<mode> blob <sha> <size, padded>\t<path>`
    const m = /^100[0-7]{3} blob ([0-9a-f]+) +(\d+)\t(.+)$/s.exec(line);
    const path = m?.[3];
    if (!m || path === undefined || !untracked.has(path)) continue;
    const [sha, size] = [m[1] ?? '', Number(m[2])];
    const st = lstatSync(join(ctx.top, path), { throwIfNoEntry: false });
    if (!st?.isFile()) continue;
    if (st.size === size) whole.set(path, sha);
    else if (st.size < size && size <= MAX_PREFIX_CHECK) cut.push({ path, sha, size: st.size });
  }
  const gone: string[] = [];
  if (whole.size > 0) {
    const files = [...whole.keys()];
    const hashed = await ctx.git.tryRun(['hash-object', '--', ...files.map((f) => join(ctx.top, f))]);
    const shas = hashed.ok ? hashed.out.split('\n') : [];
    for (const [i, f] of files.entries()) if (shas[i] === whole.get(f)) gone.push(f);
  }
  for (const c of cut) {
    const blob = await ctx.git.bytes(['cat-file', 'blob', c.sha]);
    const have = await readFile(join(ctx.top, c.path)).catch(() => null);
    if (blob !== null && have !== null && have.length === c.size && blob.subarray(0, have.length).equals(have)) gone.push(c.path);
  }
  for (const f of gone) await unlink(join(ctx.top, f)).catch(() => undefined);
}

/**
 * Only our marker is left: a fast-forward of a clean tree (or a rebase killed
 * before it began) whose checkout may have stopped half way. In llmgw's own
 * workdir the tree is set back to the branch; in a --repo checkout a person
 * is told to look (their edits, if any, were never touched).
 */
async function afterKilledFastForward(ctx: RepairContext): Promise<void> {
  if (!markerOfDeadLlmgw(ctx.gitDir)) return;
  const dirty = (await ctx.git.status([])).files.length > 0;
  if (dirty && ctx.managed && ctx.branch !== null) {
    await ctx.git.run(['checkout', '--quiet', '--force', ctx.branch], `going back to ${ctx.branch}`);
    ctx.log(`set ${ctx.top} back to ${ctx.branch} as committed: an llmgw fast-forward was killed half done there`);
  } else if (dirty) {
    ctx.log(`warning: an llmgw fast-forward was killed half done in ${ctx.top}: what git status shows may be its half-written files, not edits`);
  }
  await rm(join(ctx.gitDir, OP_MARKER), { force: true });
}

/** Put a checkout right after a killed git: stale locks, then a half-done rebase or merge. Throws GitError when a person must act. */
export async function repairCheckout(ctx: RepairContext): Promise<void> {
  const now = (ctx.now ?? Date.now)();
  await removeStaleLocks(ctx, now);
  await undoInterrupted(ctx);
}
