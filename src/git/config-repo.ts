// The config repo as the reconciler uses it: bring the checkout up to date, see
// whether people left uncommitted YAML edits, commit llmgw's generated files, and
// push without ever forcing the branch (docs/overview.md, docs/config.md, docs/safety.md).

import { existsSync, readdirSync, realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { GitError } from '../errors.js';
import { CONFIG_FILES, GENERATED_FILES } from '../config/repo-files.js';
import { createGitRunner, redact, type GitRunner } from './runner.js';

export interface ConfigRepo {
  readonly dir: string;
  readonly hasRemote: boolean;
  /** Bring the checkout up to date with its remote branch: fetch, then fast-forward (or rebase llmgw's own unpushed generated-file commits onto it). No-op without a remote. Never discards uncommitted edits. */
  sync(): Promise<void>;
  /** Which of cluster.yaml / models.yaml have uncommitted changes (staged, unstaged or untracked). */
  dirtyConfig(): Promise<string[]>;
  head(): Promise<string>;
  /** A repo-relative file as committed at HEAD, byte for byte; null when HEAD has no such file. */
  committedFile(path: string): Promise<string | null>;
  /** Stage exactly these repo-relative paths and commit them if anything changed, author and committer `llmgw <llmgw@localhost>`. Returns the new commit id, or null when nothing changed. */
  commit(paths: readonly string[], message: string): Promise<string | null>;
  /** Push the branch. Never force: on rejection fetch, rebase (llmgw only touches generated files), retry a bounded number of times; a conflict that cannot be rebased → GitError naming the cause, the local commit kept. */
  push(): Promise<void>;
}

export interface OpenOptions {
  dir: string;
  remote?: string;
  branch?: string;
  env: Record<string, string | undefined>;
  /** Push attempts before giving up on a remote that keeps moving (default 3). */
  pushAttempts?: number;
}

/** Where the checkout's remote branch is; absent when it has no upstream. */
export interface Upstream {
  remote: string;
  branch: string;
}

// The lease (src/git/lease.ts) works on the same checkout and remote, without
// widening the ConfigRepo interface that fakes in tests implement.
const internals = new WeakMap<ConfigRepo, { git: GitRunner; upstream: Upstream }>();

/** The git runner and upstream behind a repo opened here; undefined for a fake or a repo without a remote. */
export function repoInternals(repo: ConfigRepo): { git: GitRunner; upstream: Upstream } | undefined {
  return internals.get(repo);
}

export async function openConfigRepo(opts: OpenOptions): Promise<ConfigRepo> {
  const { remote, env } = opts;
  const dir = resolve(opts.dir);
  if (opts.branch !== undefined && remote === undefined) {
    throw new GitError('--branch needs --remote');
  }
  let upstream: Upstream | null;
  if (remote !== undefined) {
    upstream = await ensureClone(dir, remote, opts.branch ?? 'main', env);
  } else {
    if (!existsSync(dir)) throw new GitError(`${dir}: no such directory`);
    upstream = await readUpstream(createGitRunner(dir, env), dir);
  }
  const git = createGitRunner(dir, env);
  // The config may sit in a subdirectory of its git repo: git status names files from the top.
  const prefix = await git.run(['rev-parse', '--show-prefix']);
  return makeRepo(git, upstream, prefix, opts.pushAttempts ?? 3);
}

async function ensureClone(dir: string, url: string, branch: string, env: Record<string, string | undefined>): Promise<Upstream> {
  const empty = !existsSync(dir) || readdirSync(dir).length === 0;
  if (empty) {
    const parent = createGitRunner(process.cwd(), env);
    await parent.run(['clone', '--branch', branch, '--', url, dir], `git clone of ${redact(url)}`);
    return { remote: 'origin', branch };
  }
  const git = createGitRunner(dir, env);
  await assertCheckout(git, dir);
  // A workdir inside some other checkout would have us add remotes to that one.
  const top = await git.run(['rev-parse', '--show-toplevel']);
  if (realpathSync(top) !== realpathSync(dir)) {
    throw new GitError(`${dir} is not a checkout of its own (it lies inside ${top}): give an empty or missing --workdir`);
  }
  const current = await git.run(['remote', 'get-url', 'origin'], `${dir}: reading its origin`).catch(() => null);
  if (current === null) {
    await git.run(['remote', 'add', 'origin', url]);
  } else if (current !== url) {
    throw new GitError(`${dir} is a checkout of ${redact(current)}, not ${redact(url)}: use another --workdir`);
  }
  await git.run(['fetch', '--quiet', 'origin', `+refs/heads/${branch}:refs/remotes/origin/${branch}`], `git fetch from origin ${branch}`);
  const local = await git.run(['rev-parse', '--abbrev-ref', 'HEAD']);
  if (local !== branch) {
    await git.run(['checkout', '--quiet', '-B', branch, '--track', `origin/${branch}`], `git checkout of ${branch}`);
  } else {
    await git.run(['branch', '--quiet', `--set-upstream-to=origin/${branch}`]);
  }
  return { remote: 'origin', branch };
}

async function assertCheckout(git: GitRunner, dir: string): Promise<void> {
  const inside = await git.run(['rev-parse', '--is-inside-work-tree']).catch(() => 'false');
  if (inside !== 'true') throw new GitError(`${dir} is not a git checkout`);
}

async function readUpstream(git: GitRunner, dir: string): Promise<Upstream | null> {
  await assertCheckout(git, dir);
  const ref = await git.run(['rev-parse', '--abbrev-ref', '--symbolic-full-name', '@{upstream}']).catch(() => null);
  if (ref === null || ref === '') return null;
  const remote = await git.run(['config', '--get', `branch.${await git.run(['rev-parse', '--abbrev-ref', 'HEAD'])}.remote`]).catch(() => null);
  if (remote === null || remote === '.' || !ref.startsWith(`${remote}/`)) return null;
  return { remote, branch: ref.slice(remote.length + 1) };
}

function makeRepo(git: GitRunner, upstream: Upstream | null, prefix: string, pushAttempts: number): ConfigRepo {
  const tracking = upstream ? `refs/remotes/${upstream.remote}/${upstream.branch}` : '';

  async function fetch(u: Upstream): Promise<void> {
    await git.run(['fetch', '--quiet', u.remote, `+refs/heads/${u.branch}:${tracking}`], `git fetch from ${u.remote} ${u.branch}`);
  }

  async function count(range: string): Promise<number> {
    return Number(await git.run(['rev-list', '--count', range]));
  }

  /** Replay llmgw's unpushed commits on top of the remote branch; refuses anything but generated files. */
  async function rebaseOnto(u: Upstream): Promise<void> {
    const touched = (await git.run(['log', '--format=', '--name-only', `${tracking}..HEAD`]))
      .split('\n')
      .filter((f) => f !== '');
    const ours = new Set(GENERATED_FILES.map((f) => prefix + f));
    const foreign = [...new Set(touched)].filter((f) => !ours.has(f));
    if (foreign.length > 0) {
      throw new GitError(
        `the local branch ${u.branch} has diverged from ${u.remote}/${u.branch} with unpushed commits to ${foreign.join(', ')}: llmgw only rebases its own generated files, resolve it by hand`,
      );
    }
    try {
      // -X theirs: on a clash inside a generated file, the fresher observation (ours, being replayed) wins.
      await git.run(['rebase', '--quiet', '--autostash', '-X', 'theirs', tracking]);
    } catch (err) {
      await git.run(['rebase', '--abort']).catch(() => undefined);
      const cause = err instanceof GitError ? err.message : String(err);
      throw new GitError(`cannot rebase llmgw's commit onto ${u.remote}/${u.branch} (kept locally): ${cause}`);
    }
  }

  /** After a fetch: fast-forward, or rebase our own commits when both sides moved. */
  async function catchUp(u: Upstream): Promise<void> {
    const behind = await count(`HEAD..${tracking}`);
    if (behind === 0) return;
    const ahead = await count(`${tracking}..HEAD`);
    if (ahead === 0) {
      await git.run(['merge', '--quiet', '--ff-only', '--autostash', tracking], `fast-forward to ${u.remote}/${u.branch}`);
    } else {
      await rebaseOnto(u);
    }
    await settleGeneratedClashes();
  }

  /**
   * Uncommitted edits travel through an autostash; when one clashes with what came
   * in, git leaves conflict markers and keeps the edit in the stash. For a
   * generated file (left by a tick that died before committing) markers would
   * make it unreadable, and the tick rewrites it anyway: take the incoming one.
   * A person's file keeps its markers for them to resolve (and the config is
   * reported invalid until they do).
   */
  async function settleGeneratedClashes(): Promise<void> {
    const unmerged = (await git.run(['diff', '--name-only', '--relative', '--diff-filter=U'])).split('\n').filter((f) => f !== '');
    const generated = unmerged.filter((f) => (GENERATED_FILES as readonly string[]).includes(f));
    if (generated.length > 0) await git.run(['checkout', 'HEAD', '--', ...generated]);
  }

  const repo: ConfigRepo = {
    dir: git.dir,
    hasRemote: upstream !== null,
    async sync() {
      if (!upstream) return;
      await fetch(upstream);
      await catchUp(upstream);
    },
    async dirtyConfig() {
      const out = await git.run(['status', '--porcelain=v1', '--untracked-files=all', '--', ...CONFIG_FILES]);
      const dirty = new Set<string>();
      // Lines are `XY path` or `XY old -> new`; run() trims the first line's leading blank, so split on spaces.
      for (const line of out.split('\n')) {
        const words = line.trim().split(' ');
        for (const f of CONFIG_FILES) if (words.slice(1).includes(prefix + f)) dirty.add(f);
      }
      return [...dirty].sort();
    },
    async head() {
      return git.run(['rev-parse', 'HEAD']);
    },
    async committedFile(path) {
      const shown = await git.tryRun(['show', `HEAD:${prefix}${path}`], { raw: true });
      return shown.ok ? shown.out : null;
    },
    async commit(paths, message) {
      if (paths.length === 0) return null;
      const present = paths.filter((p) => existsSync(join(git.dir, p)));
      const missing = paths.filter((p) => !present.includes(p));
      // --force: these files belong in the repo (docs/config.md) even where a .gitignore says otherwise.
      if (present.length > 0) await git.run(['add', '--all', '--force', '--', ...present]);
      if (missing.length > 0) await git.run(['rm', '--cached', '--quiet', '--ignore-unmatch', '--', ...missing]);
      const changed = (await git.run(['diff', '--cached', '--name-only', '--relative', '--', ...paths])).split('\n').filter((f) => f !== '');
      if (changed.length === 0) return null;
      // Only these paths: whatever else a person staged in the checkout stays theirs.
      await git.run(['commit', '--quiet', '--no-verify', `--author=llmgw <llmgw@localhost>`, '-m', message, '--', ...changed]);
      return git.run(['rev-parse', 'HEAD']);
    },
    async push() {
      if (!upstream) return;
      // Nothing of ours the remote lacks: a steady tick costs no round trip here.
      if ((await count(`${tracking}..HEAD`)) === 0) return;
      const target = `${upstream.remote} ${upstream.branch}`;
      let last = '';
      for (let attempt = 1; attempt <= pushAttempts; attempt++) {
        const pushed = await git.tryRun(['push', '--quiet', upstream.remote, `HEAD:refs/heads/${upstream.branch}`]);
        if (pushed.ok) {
          await fetch(upstream).catch(() => undefined);
          return;
        }
        last = pushed.detail;
        await fetch(upstream);
        // Nothing new upstream: the push failed for another reason (permissions, a hook), retrying won't help.
        if ((await count(`HEAD..${tracking}`)) === 0) throw new GitError(`git push to ${target} failed: ${last}`);
        await rebaseOnto(upstream);
      }
      throw new GitError(`git push to ${target} was rejected ${pushAttempts} time${pushAttempts === 1 ? '' : 's'}: ${last}`);
    },
  };
  if (upstream) internals.set(repo, { git, upstream });
  return repo;
}
