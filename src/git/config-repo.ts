// The config repo as the reconciler uses it: bring the checkout up to date, see
// whether people left uncommitted YAML edits, commit llmgw's generated files, and
// push without ever forcing the branch (docs/overview.md, docs/config.md, docs/safety.md).
//
// One git repo, three jobs, each its own interface so a caller asks only for
// the one it uses: the `Checkout` (sync, dirty, commit, push: the reconcile
// tick), the `TreeReader` (files as committed at a ref: `plan --base`, the
// branch's config) and the `LeaseRefs` (the compare-and-swap on the lease's
// ref: src/git/lease.ts). `ConfigRepo` is all three, as openConfigRepo makes it.

import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseDuration } from '../config/duration.js';
import { DataError, GitError } from '../errors.js';
import { CONFIG_FILES, GENERATED_DIR, GENERATED_FILES, STATUS_FILE } from '../store/files.js';
import { repairCheckout, withOpMarker } from './repair.js';
import { DEFAULT_GIT_TIMEOUT_MS, GitTimeoutError, createGitRunner, gitTimeoutOverride, llmgwIdent, type GitLimits, type GitRunner } from './runner.js';
import { assertCheckout, ensureWorkdir, recloneWorkdir, type Upstream, type WorkdirOptions } from './workdir.js';

export interface Checkout {
  readonly dir: string;
  readonly hasRemote: boolean;
  /**
   * Bring the checkout up to date with its remote branch: put right what a
   * killed git left (stale locks, a half-done rebase of llmgw's), fetch, then
   * fast-forward (or rebase llmgw's own unpushed generated-file commits onto
   * it). An llmgw-managed --workdir that cannot be brought up to date is cloned
   * afresh. Never discards uncommitted edits in a --repo checkout. `log` hears
   * of every repair.
   */
  sync(log?: (line: string) => void): Promise<void>;
  /** cluster.yaml's `git.timeout`, once the config is read (LLMGW_GIT_TIMEOUT, when set, wins). */
  setGitTimeout?(ms: number): void;
  /** cluster.yaml's `git.email`, once the config is read: the email of every commit from then on (undefined: llmgw@localhost). */
  setGitEmail?(email: string | undefined): void;
  /** Which of cluster.yaml / models.yaml have uncommitted changes (staged, unstaged or untracked). */
  dirtyConfig(): Promise<string[]>;
  /** Which of these repo-relative paths differ from HEAD in the index or the working tree (untracked included). */
  changedFromHead(paths: readonly string[]): Promise<string[]>;
  head(): Promise<string>;
  /** Commits on HEAD that the remote branch lacks (this tick's, or an earlier one's whose push failed); false without a remote. */
  unpushed(): Promise<boolean>;
  /** Stage exactly these repo-relative paths and commit them if anything changed, author and committer `llmgw <llmgw@localhost>`. Returns the new commit id, or null when nothing changed. */
  commit(paths: readonly string[], message: string): Promise<string | null>;
  /** Push the branch. Never force: on rejection fetch, rebase (llmgw only touches generated files), retry a bounded number of times; a conflict that cannot be rebased → GitError naming the cause, the local commit kept. */
  push(): Promise<void>;
}

/** Files as committed at a ref, read without touching the working tree. */
export interface TreeReader {
  /** A repo-relative file as committed at HEAD, byte for byte; null when HEAD has no such file. */
  committedFile(path: string): Promise<string | null>;
  /** The commit `ref` names (`origin/main`, a sha, `HEAD~1`); a GitError naming the ref when it names none. */
  resolveCommit(ref: string): Promise<string>;
  /**
   * A repo-relative file as committed at `ref`, byte for byte; null when `ref`
   * has no such file. A symbolic link there is a DataError: its target is never read.
   */
  fileAt(ref: string, path: string): Promise<string | null>;
  /**
   * The git mode of each of these repo-relative paths at `ref` (`100644`,
   * `040000`, `120000` for a symbolic link, …); a path `ref` lacks is absent.
   */
  modesAt(ref: string, paths: readonly string[]): Promise<Map<string, string>>;
  /**
   * Which of these repo-relative paths (files or directories) this branch
   * changed since it left `ref`: from their merge base to the working tree, so
   * commits that landed on `ref` meanwhile are not the branch's changes.
   */
  changedSince(ref: string, paths: readonly string[]): Promise<string[]>;
}

/** The remote's refs outside its branches: what the lease (src/git/lease.ts) swaps. */
export interface LeaseRefs {
  readonly hasRemote: boolean;
  /** A ref of the remote outside its branches (the lease): its commit and message, fetched into the local `copy`; null when the remote has none, or there is no remote. */
  readRemoteRef(ref: string, copy: string, what?: string): Promise<{ sha: string; message: string } | null>;
  /**
   * Point the remote's `ref` at a new commit (of an empty tree) carrying
   * `message`, only while the remote still has `expected` there ('' = no such
   * ref): a compare-and-swap on that one ref, never on a branch.
   */
  swapRemoteRef(ref: string, message: string, expected: string): Promise<{ ok: true; sha?: string } | { ok: false; detail: string }>;
  /** The commit a ref of the remote points at, read without writing anything locally; null when it has none (or there is no remote). */
  remoteRefSha(ref: string): Promise<string | null>;
  /**
   * Delete the remote's `ref` only while it still points at `expected`: how a
   * lease is let go. Writes nothing locally, so it works on a full disk.
   */
  dropRemoteRef(ref: string, expected: string): Promise<{ ok: true } | { ok: false; detail: string }>;
}

export interface ConfigRepo extends Checkout, TreeReader, LeaseRefs {}

export interface OpenOptions {
  dir: string;
  remote?: string;
  branch?: string;
  env: Record<string, string | undefined>;
  /** Push attempts before giving up on a remote that keeps moving (default 3). */
  pushAttempts?: number;
  /** Every git call's bound (default: LLMGW_GIT_TIMEOUT, else 60s; cluster.yaml's git.timeout applies once the config is read). */
  timeoutMs?: number;
  /** Aborted when the process is asked to stop: git calls then get a short grace (src/git/runner.ts). */
  stopping?: AbortSignal;
  /** Aborted when the process must stop now: git calls in flight are killed. */
  halted?: AbortSignal;
  /** Where repairs of the checkout are told (default: nowhere until a tick passes its log to sync). */
  log?: (line: string) => void;
}

export type { Upstream } from './workdir.js';

export async function openConfigRepo(opts: OpenOptions): Promise<ConfigRepo> {
  const { remote, env } = opts;
  const dir = resolve(opts.dir);
  if (opts.branch !== undefined && remote === undefined) {
    throw new GitError('--branch needs --remote');
  }
  const override = gitTimeoutOverride(env, parseDuration);
  const limits: GitLimits = { timeoutMs: opts.timeoutMs ?? override ?? DEFAULT_GIT_TIMEOUT_MS, stopping: opts.stopping, halted: opts.halted };
  const log = opts.log ?? (() => undefined);
  let upstream: Upstream | null;
  const workdir = remote === undefined ? null : { dir, url: remote, branch: opts.branch ?? 'main', env, limits, log };
  if (workdir !== null) {
    upstream = await ensureWorkdir(workdir);
  } else {
    if (!existsSync(dir)) throw new GitError(`${dir}: no such directory`);
    upstream = await readUpstream(createGitRunner(dir, env, limits), dir);
  }
  const git = createGitRunner(dir, env, limits);
  // The config may sit in a subdirectory of its git repo: git status names files from the top.
  const prefix = await git.run(['rev-parse', '--show-prefix']);
  const where = {
    top: await git.run(['rev-parse', '--show-toplevel']),
    gitDir: await git.run(['rev-parse', '--absolute-git-dir']),
  };
  return makeRepo(git, upstream, prefix, opts.pushAttempts ?? 3, { limits, workdir, where, override: override !== null, log });
}

async function readUpstream(git: GitRunner, dir: string): Promise<Upstream | null> {
  await assertCheckout(git, dir);
  const ref = await git.run(['rev-parse', '--abbrev-ref', '--symbolic-full-name', '@{upstream}']).catch(() => null);
  if (ref === null || ref === '') return null;
  const remote = await git.run(['config', '--get', `branch.${await git.run(['rev-parse', '--abbrev-ref', 'HEAD'])}.remote`]).catch(() => null);
  if (remote === null || remote === '.' || !ref.startsWith(`${remote}/`)) return null;
  return { remote, branch: ref.slice(remote.length + 1) };
}

interface RepoContext {
  limits: GitLimits;
  /** Set for an llmgw-managed --workdir: the only kind of checkout llmgw may clone afresh. */
  workdir: WorkdirOptions | null;
  where: { top: string; gitDir: string };
  /** LLMGW_GIT_TIMEOUT is set: it wins over cluster.yaml. */
  override: boolean;
  log: (line: string) => void;
}

function makeRepo(git: GitRunner, upstream: Upstream | null, prefix: string, pushAttempts: number, ctx: RepoContext): ConfigRepo {
  const tracking = upstream ? `refs/remotes/${upstream.remote}/${upstream.branch}` : '';

  async function fetch(u: Upstream): Promise<void> {
    await git.run(['fetch', '--quiet', u.remote, `+refs/heads/${u.branch}:${tracking}`], `git fetch from ${u.remote} ${u.branch}`, { moment: 'git:fetch' });
  }

  async function count(range: string): Promise<number> {
    return Number(await git.run(['rev-list', '--count', range]));
  }

  /** Replay llmgw's unpushed commits on top of the remote branch; refuses anything but generated files. */
  async function rebaseOnto(u: Upstream): Promise<void> {
    const touched = (await git.run(['log', '--format=', '--name-only', `${tracking}..HEAD`])).split('\n').filter((f) => f !== '');
    // Also what a tick's repair of a linked STATUS.md or .llmgw/ removed (the link, a directory in a file's place).
    const ours = new Set([...GENERATED_FILES, GENERATED_DIR].map((f) => prefix + f));
    const isOurs = (f: string) => ours.has(f) || f.startsWith(`${prefix}${STATUS_FILE}/`) || f.startsWith(`${prefix}${GENERATED_DIR}/`);
    const foreign = [...new Set(touched)].filter((f) => !isOurs(f));
    if (foreign.length > 0) {
      throw new GitError(
        `the local branch ${u.branch} has diverged from ${u.remote}/${u.branch} with unpushed commits to ${foreign.join(', ')}: llmgw only rebases its own generated files, resolve it by hand`,
      );
    }
    try {
      // -X theirs: on a clash inside a generated file, the fresher observation (ours, being replayed) wins.
      await withOpMarker(ctx.where.gitDir, 'rebase', () =>
        git.run(['rebase', '--quiet', '--autostash', '-X', 'theirs', tracking], undefined, { moment: 'git:rebase' }),
      );
    } catch (err) {
      if (err instanceof GitTimeoutError) throw err; // its leftovers are the next sync's to undo
      await git.run(['rebase', '--abort']).catch(() => undefined);
      const cause = err instanceof GitError ? err.message : String(err);
      throw new GitError(`cannot rebase llmgw's commit onto ${u.remote}/${u.branch} (kept locally): ${cause}`);
    }
  }

  /** The remote tip this checkout was last level with (pushed to, or caught up with): how a rewritten remote branch is told. */
  const SYNCED_REF = 'refs/llmgw/synced';

  async function markSynced(): Promise<void> {
    await git.run(['update-ref', SYNCED_REF, tracking]);
  }

  function rewrittenPush(target: string, gone: string): GitError {
    return new GitError(
      `git push to ${target} refused by llmgw: the remote branch was rewritten (it no longer contains ${gone.slice(0, 12)}); the next tick follows it`,
    );
  }

  /** The remote tip last level with, when the remote branch no longer contains it (a force-push); null otherwise. */
  async function rewrittenFrom(): Promise<string | null> {
    const last = await git.tryRun(['rev-parse', '--verify', '--quiet', SYNCED_REF]);
    if (!last.ok || last.out === '') return null;
    const still = await git.tryRun(['merge-base', '--is-ancestor', last.out, tracking]);
    return still.ok ? null : last.out;
  }

  /**
   * The remote's history wins (docs/safety.md#history-rewritten-by-a-person): the
   * branch was rewritten since this checkout was last level with it, so its
   * commits the remote dropped are not put back. llmgw's own unpushed commits
   * are dropped (the log names them) and the checkout is reset to the remote;
   * an unpushed commit of a person's is never dropped: that is theirs to resolve.
   */
  async function followRewrite(u: Upstream, last: string, log: (line: string) => void): Promise<void> {
    const local = (await git.run(['log', '--format=%H %s', `${last}..HEAD`])).split('\n').filter((l) => l !== '');
    const touched = (await git.run(['log', '--format=', '--name-only', `${last}..HEAD`])).split('\n').filter((f) => f !== '');
    const ours = new Set([...GENERATED_FILES, GENERATED_DIR].map((f) => prefix + f));
    const foreign = [...new Set(touched)].filter((f) => !ours.has(f) && !f.startsWith(`${prefix}${GENERATED_DIR}/`));
    if (foreign.length > 0) {
      throw new GitError(
        `${u.remote}/${u.branch} was rewritten (it no longer contains ${last.slice(0, 12)}) and the local branch has unpushed commits to ${foreign.join(', ')}: resolve it by hand`,
      );
    }
    // Generated files a dead tick left uncommitted are rewritten by this tick anyway.
    await git.tryRun(['checkout', 'HEAD', '--', ...GENERATED_FILES]);
    await withOpMarker(ctx.where.gitDir, 'merge', () =>
      git.run(['reset', '--quiet', '--keep', tracking], `reset to ${u.remote}/${u.branch}`, { moment: 'git:merge' }),
    );
    const dropped = local.map((l) => `${l.slice(0, 12)} (${l.slice(41)})`);
    log(
      `warning: ${u.remote}/${u.branch} was rewritten (it no longer contains ${last.slice(0, 12)}, which this checkout was level with): the remote's history wins, following it` +
        (dropped.length > 0 ? `; dropped llmgw's unpushed commit${dropped.length === 1 ? '' : 's'} ${dropped.join(', ')}` : ''),
    );
  }

  /** After a fetch: follow a rewritten remote branch, else fast-forward, or rebase our own commits when both sides moved. */
  async function catchUp(u: Upstream, log: (line: string) => void): Promise<void> {
    const last = await rewrittenFrom();
    if (last !== null) {
      await followRewrite(u, last, log);
      await markSynced();
      return;
    }
    await catchUpLinear(u);
    await markSynced();
  }

  async function catchUpLinear(u: Upstream): Promise<void> {
    const behind = await count(`HEAD..${tracking}`);
    if (behind === 0) return;
    const ahead = await count(`${tracking}..HEAD`);
    if (ahead === 0) {
      await withOpMarker(ctx.where.gitDir, 'merge', () =>
        git.run(['merge', '--quiet', '--ff-only', '--autostash', tracking], `fast-forward to ${u.remote}/${u.branch}`, { moment: 'git:merge' }),
      );
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
    // git status names the conflicted paths from the top of the repository.
    const conflicted = new Set((await git.status(['--', ...GENERATED_FILES])).conflicted);
    const generated = GENERATED_FILES.filter((f) => conflicted.has(prefix + f));
    if (generated.length > 0) await git.run(['checkout', 'HEAD', '--', ...generated]);
  }

  /** Paths relative to the config directory, as git prints them relative to the top of the repository. */
  async function changedFromHead(paths: readonly string[]): Promise<string[]> {
    if (paths.length === 0) return [];
    // Parsed git status (porcelain with NULs): a path with spaces is one path, a rename names both.
    const status = await git.status(['--', ...paths]);
    const touched = new Set(status.files.flatMap((f) => (f.from === undefined ? [f.path] : [f.path, f.from])));
    return paths.filter((p) => touched.has(prefix + p) || [...touched].some((t) => t.startsWith(`${prefix}${p}/`)));
  }

  async function modesAt(ref: string, paths: readonly string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    if (paths.length === 0) return out;
    // The ref was resolved first (resolveCommit), so it cannot pass for an option here; -z: a path is never
    // quoted; -t: a directory is listed itself (its mode matters) even when a path inside it is asked for.
    const listed = await git.tryRun(['ls-tree', '-z', '-t', '--full-tree', ref, '--', ...paths.map((p) => prefix + p)], { raw: true });
    if (!listed.ok) return out;
    for (const line of listed.out.split('\0')) {
      // `<mode> <type> <sha>\t<path>`
      const tab = line.indexOf('\t');
      if (tab < 0) continue;
      const path = line.slice(tab + 1);
      if (path.startsWith(prefix)) out.set(path.slice(prefix.length), line.split(' ', 1)[0] ?? line);
    }
    return out;
  }

  async function fileAt(ref: string, path: string): Promise<string | null> {
    // The file and every directory above it inside the config dir (`.llmgw` of `.llmgw/state.json`):
    // 120000 is a symbolic link, whose target text must never pass for the file, nor a link for a directory.
    const parts = path.split('/');
    const chain = parts.map((_, i) => parts.slice(0, i + 1).join('/'));
    const modes = await modesAt(ref, chain);
    const link = chain.find((p) => modes.get(p) === '120000');
    if (link !== undefined) throw new DataError(`${ref}:${link}: is a symbolic link; llmgw reads only regular files`);
    const mode = modes.get(path);
    if (mode === undefined || !/^100[0-7]{3}$/.test(mode)) return null;
    const shown = await git.tryRun(['cat-file', 'blob', `${ref}:${prefix}${path}`], { raw: true });
    return shown.ok ? shown.out : null;
  }

  const repo: ConfigRepo = {
    dir: git.dir,
    hasRemote: upstream !== null,
    async sync(log = ctx.log) {
      await repairCheckout({
        git,
        top: ctx.where.top,
        gitDir: ctx.where.gitDir,
        staleAfterMs: ctx.limits.timeoutMs,
        managed: ctx.workdir !== null,
        branch: upstream?.branch ?? null,
        log,
      });
      if (!upstream) return;
      await fetch(upstream);
      try {
        await git.run(['rev-parse', '--verify', '--quiet', 'HEAD'], 'reading HEAD');
        await catchUp(upstream, log);
      } catch (err) {
        // A remote that does not answer is not the checkout's fault; anything
        // local that fails in llmgw's own workdir is cured by a fresh clone.
        if (ctx.workdir === null || !(err instanceof GitError) || err instanceof GitTimeoutError) throw err;
        await recloneWorkdir({ ...ctx.workdir, log }, `cannot be brought up to date (${err.message})`);
      }
    },
    setGitTimeout(ms) {
      if (!ctx.override) ctx.limits.timeoutMs = ms;
    },
    setGitEmail(email) {
      ctx.limits.email = email;
    },
    async dirtyConfig() {
      const changed = await changedFromHead(CONFIG_FILES);
      return CONFIG_FILES.filter((f) => changed.includes(f));
    },
    changedFromHead,
    async head() {
      return git.run(['rev-parse', 'HEAD']);
    },
    async committedFile(path) {
      return fileAt('HEAD', path);
    },
    async resolveCommit(ref) {
      // `^{commit}`: a tag or a tree id must not pass for a commit; `--end-of-options`: a ref is never an option.
      const sha = await git.tryRun(['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`]);
      if (!sha.ok || sha.out === '') throw new GitError(`${ref}: not a commit in ${git.dir} (fetch it first, e.g. git fetch origin)`);
      return sha.out;
    },
    fileAt,
    modesAt,
    async changedSince(ref, paths) {
      const base = await git.tryRun(['merge-base', '--end-of-options', ref, 'HEAD']);
      // No common history: everything that differs from ref is the branch's.
      const from = base.ok && base.out !== '' ? base.out : await repo.resolveCommit(ref);
      const out = await git.run(['diff', '--name-only', '--relative', '--no-renames', from, '--', ...paths]);
      const names = out.split('\n').filter((f) => f !== '');
      return [...new Set(names)].sort();
    },
    async unpushed() {
      if (!upstream) return false;
      return (await count(`${tracking}..HEAD`)) > 0;
    },
    async commit(paths, message) {
      if (paths.length === 0) return null;
      const present = paths.filter((p) => existsSync(join(git.dir, p)));
      const missing = paths.filter((p) => !present.includes(p));
      // --force: these files belong in the repo (docs/config.md) even where a .gitignore says otherwise.
      if (present.length > 0) await git.run(['add', '--all', '--force', '--', ...present], undefined, { moment: 'git:add' });
      if (missing.length > 0) await git.run(['rm', '--cached', '--quiet', '--ignore-unmatch', '--', ...missing]);
      const changed = (await git.run(['diff', '--cached', '--name-only', '--relative', '--', ...paths])).split('\n').filter((f) => f !== '');
      if (changed.length === 0) return null;
      // Only these paths: whatever else a person staged in the checkout stays theirs.
      const ident = llmgwIdent(ctx.limits);
      await git.run(['commit', '--quiet', '--no-verify', `--author=${ident.name} <${ident.email}>`, '-m', message, '--', ...changed], undefined, {
        moment: 'git:commit',
      });
      return git.run(['rev-parse', 'HEAD']);
    },
    async push() {
      if (!upstream) return;
      // Nothing of ours the remote lacks: a steady tick costs no round trip here.
      if ((await count(`${tracking}..HEAD`)) === 0) return;
      const target = `${upstream.remote} ${upstream.branch}`;
      // A remote rewritten since the sync would take HEAD as a fast-forward and get back the commits it dropped: look first.
      await fetch(upstream);
      const rewritten = await rewrittenFrom();
      if (rewritten !== null) throw rewrittenPush(target, rewritten);
      let last = '';
      for (let attempt = 1; attempt <= pushAttempts; attempt++) {
        const pushed = await git.tryRun(['push', '--quiet', upstream.remote, `HEAD:refs/heads/${upstream.branch}`], { moment: 'git:push' });
        if (pushed.ok) {
          await fetch(upstream).catch(() => undefined);
          await markSynced().catch(() => undefined);
          return;
        }
        last = pushed.detail;
        await fetch(upstream);
        // Rewritten meanwhile: never rebase the dropped commits back on; the next tick's sync follows the remote.
        const gone = await rewrittenFrom();
        if (gone !== null) throw rewrittenPush(target, gone);
        // Nothing new upstream: the push failed for another reason (permissions, a hook), retrying won't help.
        if ((await count(`HEAD..${tracking}`)) === 0) throw new GitError(`git push to ${target} failed: ${last}`);
        await rebaseOnto(upstream);
      }
      throw new GitError(`git push to ${target} was rejected ${pushAttempts} time${pushAttempts === 1 ? '' : 's'}: ${last}`);
    },
    async readRemoteRef(ref, copy, what = ref) {
      if (!upstream) return null;
      const reading = `reading ${what} from ${upstream.remote}`;
      const listed = await git.run(['ls-remote', upstream.remote, ref], reading);
      if (listed === '') return null;
      await git.run(['fetch', '--quiet', '--no-tags', upstream.remote, `+${ref}:${copy}`], reading);
      const sha = await git.run(['rev-parse', '--verify', copy]);
      return { sha, message: await git.run(['log', '-1', '--format=%B', sha]) };
    },
    async swapRemoteRef(ref, message, expected) {
      if (!upstream) return { ok: true };
      const emptyTree = await git.run(['hash-object', '-t', 'tree', '-w', '/dev/null']);
      const commit = await git.run(['commit-tree', emptyTree, '-m', message], `writing the commit for ${ref}`);
      const pushed = await git.tryRun(['push', '--quiet', '--porcelain', `--force-with-lease=${ref}:${expected}`, upstream.remote, `${commit}:${ref}`]);
      return pushed.ok ? { ok: true, sha: commit } : pushed;
    },
    async remoteRefSha(ref) {
      if (!upstream) return null;
      const listed = await git.run(['ls-remote', upstream.remote, ref], `reading ${ref} from ${upstream.remote}`);
      return listed === '' ? null : (listed.split(/\s/)[0] ?? null);
    },
    async dropRemoteRef(ref, expected) {
      if (!upstream) return { ok: true };
      const pushed = await git.tryRun(['push', '--quiet', '--porcelain', `--force-with-lease=${ref}:${expected}`, upstream.remote, `:${ref}`]);
      return pushed.ok ? { ok: true } : pushed;
    },
  };
  return repo;
}
