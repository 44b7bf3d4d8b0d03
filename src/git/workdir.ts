// The checkout llmgw keeps of `--remote URL` in `--workdir DIR` (docs/commands.md).
// It holds nothing the remote lacks but llmgw's own unpushed commits, which
// the next tick makes again from a fresh observation: so a workdir that cannot
// be repaired is cloned afresh (docs/operations.md#crash-only). A clone is made beside
// it and renamed into place, so a kill -9 mid-clone never leaves half a
// checkout where the workdir should be. Only a directory that is recognisably
// this remote's checkout is ever replaced: a --workdir pointed at a person's
// files by mistake is refused, never deleted.

import { existsSync, readdirSync, realpathSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { GitError } from '../errors.js';
import { BROKEN_COPY_SUFFIX, CLONE_COPY_INFIX } from '../config/repo-paths.js';
import { alive } from './repair.js';
import { createGitRunner, redact, type GitLimits, type GitRunner } from './runner.js';

/** Where the checkout's remote branch is; absent when it has no upstream. */
export interface Upstream {
  remote: string;
  branch: string;
}

export interface WorkdirOptions {
  dir: string;
  url: string;
  branch: string;
  env: Record<string, string | undefined>;
  limits: GitLimits;
  log: (line: string) => void;
}

const CLONING = CLONE_COPY_INFIX;
const BROKEN = BROKEN_COPY_SUFFIX;

export async function assertCheckout(git: GitRunner, dir: string): Promise<void> {
  const inside = await git.run(['rev-parse', '--is-inside-work-tree']).catch(() => 'false');
  if (inside !== 'true') throw new GitError(`${dir} is not a git checkout`);
}

/** Half-made clones of processes that died (`DIR.llmgw-clone-<pid>`). */
async function removeDeadClones(dir: string): Promise<void> {
  const parent = dirname(dir);
  const prefix = basename(dir) + CLONING;
  const names = existsSync(parent) ? readdirSync(parent) : [];
  for (const n of names) {
    if (!n.startsWith(prefix) || alive(Number(n.slice(prefix.length)))) continue;
    await rm(join(parent, n), { recursive: true, force: true });
  }
}

/**
 * Clone beside `dir`, then rename into place; an existing `dir` is kept as
 * `DIR.llmgw-broken` (the previous one of those goes). An empty `dir` — or
 * one that cannot be renamed, such as a mount point — is cloned into in place.
 */
async function freshClone(o: WorkdirOptions): Promise<void> {
  const clone = async (into: string) => {
    const parent = createGitRunner(dirname(o.dir), o.env, o.limits);
    await parent.run(['clone', '--quiet', '--branch', o.branch, '--', o.url, into], `git clone of ${redact(o.url)}`);
  };
  if (existsSync(o.dir) && readdirSync(o.dir).length === 0) return clone(o.dir);
  const tmp = `${o.dir}${CLONING}${process.pid}`;
  await rm(tmp, { recursive: true, force: true });
  try {
    await clone(tmp);
  } catch (err) {
    await rm(tmp, { recursive: true, force: true });
    throw err;
  }
  if (existsSync(o.dir)) {
    await rm(o.dir + BROKEN, { recursive: true, force: true });
    const moved = await rename(o.dir, o.dir + BROKEN).then(
      () => true,
      () => false,
    );
    if (!moved) {
      await rm(tmp, { recursive: true, force: true });
      for (const n of readdirSync(o.dir)) await rm(join(o.dir, n), { recursive: true, force: true });
      return clone(o.dir);
    }
  }
  await rename(tmp, o.dir);
}

/** The origin URL a directory's own .git/config names, read without trusting anything else in it; null if none. */
async function ownOrigin(o: WorkdirOptions): Promise<string | null> {
  const config = join(o.dir, '.git', 'config');
  if (!existsSync(config)) return null;
  const git = createGitRunner(dirname(o.dir), o.env, o.limits);
  const r = await git.tryRun(['config', '--file', config, '--get', 'remote.origin.url']).catch(() => null);
  return r?.ok ? r.out : null;
}

/** Re-clone a workdir that cannot be used as it is — only when it is this remote's own checkout. */
export async function recloneWorkdir(o: WorkdirOptions, why: string): Promise<void> {
  const origin = await ownOrigin(o);
  if (origin !== o.url)
    throw new GitError(`${o.dir}: ${why}; it is not a checkout of ${redact(o.url)} that llmgw may replace: repair it by hand or give another --workdir`);
  o.log(`warning: ${o.dir}: ${why}: cloned ${redact(o.url)} afresh (the old checkout is kept as ${basename(o.dir)}${BROKEN})`);
  await freshClone(o);
}

/** Clone into a missing or empty workdir, or bring an existing one to the branch; a broken one of ours is re-cloned. */
export async function ensureWorkdir(o: WorkdirOptions): Promise<Upstream> {
  await removeDeadClones(o.dir);
  const upstream = { remote: 'origin', branch: o.branch };
  if (!existsSync(o.dir) || readdirSync(o.dir).length === 0) {
    await freshClone(o);
    return upstream;
  }
  const git = createGitRunner(o.dir, o.env, o.limits);
  const top = await git.tryRun(['rev-parse', '--show-toplevel']);
  if (!top.ok) {
    await recloneWorkdir(o, `not a usable git checkout (${top.detail})`);
    return upstream;
  }
  // A workdir inside some other checkout would have us add remotes to that one.
  if (realpathSync(top.out) !== realpathSync(o.dir)) {
    throw new GitError(`${o.dir} is not a checkout of its own (it lies inside ${top.out}): give an empty or missing --workdir`);
  }
  const current = await git.run(['remote', 'get-url', 'origin'], `${o.dir}: reading its origin`).catch(() => null);
  if (current === null) {
    await git.run(['remote', 'add', 'origin', o.url]);
  } else if (current !== o.url) {
    throw new GitError(`${o.dir} is a checkout of ${redact(current)}, not ${redact(o.url)}: use another --workdir`);
  }
  await git.run(['fetch', '--quiet', 'origin', `+refs/heads/${o.branch}:refs/remotes/origin/${o.branch}`], `git fetch from origin ${o.branch}`);
  try {
    const local = await git.run(['rev-parse', '--abbrev-ref', 'HEAD']);
    if (local !== o.branch) {
      await git.run(['checkout', '--quiet', '-B', o.branch, '--track', `origin/${o.branch}`], `git checkout of ${o.branch}`);
    } else {
      await git.run(['branch', '--quiet', `--set-upstream-to=origin/${o.branch}`]);
    }
  } catch (err) {
    if (!(err instanceof GitError)) throw err;
    await recloneWorkdir(o, err.message);
  }
  return upstream;
}
