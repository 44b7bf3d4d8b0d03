// One way to run git for llmgw: simple-git with the caller's environment passed
// explicitly, llmgw's identity on every commit it makes, and every failure turned
// into a one-line GitError with any credentials in a URL blanked out.

import { simpleGit, type SimpleGit, type StatusResult } from 'simple-git';
import { GitError } from '../errors.js';

/** The identity of every commit llmgw makes: a fresh machine has none configured. */
export const LLMGW_NAME = 'llmgw';
export const LLMGW_EMAIL = 'llmgw@localhost';

// simple-git strips inherited GIT_* variables (and refuses explicit ones) unless
// they are named here. These are the ones an operator legitimately sets for a
// reconciler: how to reach an SSH remote, which CA an HTTPS remote uses, and
// never to wait on a prompt.
const ALLOWED_ENV = ['GIT_SSH_COMMAND', 'GIT_SSH', 'GIT_SSH_VARIANT', 'GIT_TERMINAL_PROMPT', 'GIT_SSL_CAINFO', 'GIT_SSL_CAPATH'];

export interface GitRunner {
  readonly dir: string;
  /** Run `git <args>` in dir; resolves with trimmed stdout, rejects with GitError. */
  run(args: string[], what?: string): Promise<string>;
  /** Like run, but a failure is a value: its most telling line. `raw` keeps stdout as is (a file's text, whose line numbers matter). */
  tryRun(args: string[], opts?: { raw?: boolean }): Promise<{ ok: true; out: string } | { ok: false; detail: string }>;
  /**
   * `git status` as simple-git parses it (`--porcelain --null`, so a path with
   * spaces or quotes is one path); `args` are extra options and pathspecs.
   * Paths are relative to the top of the repository.
   */
  status(args: string[]): Promise<StatusResult>;
}

/** Blank out `user:token@` in URLs: remotes often carry a token. */
export function redact(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/@\s]+@/gi, '$1***@');
}

/** The most telling line of git's output: the first `fatal:`/`error:` line, else the first line. */
export function firstLine(text: string): string {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('hint:'));
  const telling = lines.find((l) => /^(fatal|error|remote: error|! \[)/.test(l));
  return redact(telling ?? lines[0] ?? 'failed');
}

function gitEnv(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) continue;
    const lower = k.toLowerCase();
    // Guarded variables other than the allowed ones would make simple-git refuse the task.
    if ((lower.startsWith('git_') || GUARDED.has(lower)) && !ALLOWED_ENV.includes(k)) continue;
    out[k] = v;
  }
  // A daemon has no terminal: a credential prompt must fail, not hang the tick.
  out.GIT_TERMINAL_PROMPT ??= '0';
  return out;
}

const GUARDED = new Set(['editor', 'pager', 'prefix', 'ssh_askpass', 'visual']);

export function createGitRunner(dir: string, env: Record<string, string | undefined>): GitRunner {
  const git: SimpleGit = simpleGit({
    baseDir: dir,
    config: [`user.name=${LLMGW_NAME}`, `user.email=${LLMGW_EMAIL}`],
    allowEnvironment: ALLOWED_ENV,
    unsafe: { allowUnsafeSshCommand: true },
    // simple-git treats a non-zero exit with empty stderr as success; llmgw does not.
    errors(error, result) {
      if (result.exitCode === 0) return error;
      if (error) return error;
      return new Error(`exit code ${result.exitCode}`);
    },
  }).env(gitEnv(env));
  async function tryRun(args: string[], opts: { raw?: boolean } = {}): Promise<{ ok: true; out: string } | { ok: false; detail: string }> {
    try {
      const out = await git.raw(args);
      return { ok: true, out: opts.raw ? out : out.trim() };
    } catch (err) {
      return { ok: false, detail: firstLine(err instanceof Error ? err.message : String(err)) };
    }
  }
  return {
    dir,
    tryRun,
    async status(args) {
      try {
        return await git.status(args);
      } catch (err) {
        throw new GitError(`git status failed: ${firstLine(err instanceof Error ? err.message : String(err))}`);
      }
    },
    async run(args, what) {
      const r = await tryRun(args);
      if (!r.ok) throw new GitError(`${what ?? `git ${args[0]}`} failed: ${r.detail}`);
      return r.out;
    },
  };
}
