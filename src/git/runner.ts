// One way to run git for llmgw: the caller's environment passed explicitly,
// llmgw's identity on every commit it makes, every failure a one-line GitError
// with any credentials in a URL blanked out — and every call bounded in time
// (docs/operations.md#crash-only). A git call is a process group of its own (git and
// the helpers it starts: ssh, git-remote-http), so a call past its timeout, or
// stopped by a shutdown, is killed whole: a remote that accepts and never
// answers cannot hold a tick, nor a daemon that was told to stop.

import { spawn, type ChildProcess } from 'node:child_process';
import { GitError } from '../errors.js';
import { errnoCode } from '../util/errno.js';
import { crashPoint, onCrash } from '../util/crash-point.js';

/** The identity of every commit llmgw makes: a fresh machine has none configured. */
export const LLMGW_NAME = 'llmgw';
export const LLMGW_EMAIL = 'llmgw@localhost';

/** The name and email llmgw commits as: cluster.yaml `git.email` once the config is read, else LLMGW_EMAIL. */
export function llmgwIdent(limits: Pick<GitLimits, 'email'>): { name: string; email: string } {
  return { name: LLMGW_NAME, email: limits.email ?? LLMGW_EMAIL };
}

/** cluster.yaml `git.timeout`'s default. */
export const DEFAULT_GIT_TIMEOUT_MS = 60_000;
/** After a shutdown began, each git call gets at most this long (a commit takes milliseconds; a hung push is cut). */
export const SHUTDOWN_GRACE_MS = 5_000;

// Inherited GIT_* variables are dropped (a GIT_DIR from the environment would
// point every call at another repository) except these, which an operator
// legitimately sets for a reconciler: how to reach an SSH remote, which CA an
// HTTPS remote uses, and never to wait on a prompt.
const ALLOWED_ENV = ['GIT_SSH_COMMAND', 'GIT_SSH', 'GIT_SSH_VARIANT', 'GIT_TERMINAL_PROMPT', 'GIT_SSL_CAINFO', 'GIT_SSL_CAPATH'];

/** How long git calls may take, shared by every runner of one repo (cluster.yaml may change it after the repo is open). */
export interface GitLimits {
  timeoutMs: number;
  /** Aborted when the process is asked to stop: calls in flight and later ones get SHUTDOWN_GRACE_MS at most. */
  stopping?: AbortSignal;
  /** Aborted when the process must stop now (a second signal): calls in flight are killed, none is started. */
  halted?: AbortSignal;
  /** cluster.yaml `git.email`: the email of llmgw's commits instead of LLMGW_EMAIL. */
  email?: string;
}

export interface GitStatusFile {
  /** From the top of the repository. */
  path: string;
  /** The old path of a rename or copy. */
  from?: string;
  /** The two status letters (`XY` of git status --porcelain). */
  xy: string;
}

export interface GitStatus {
  files: GitStatusFile[];
  /** Paths with unmerged entries (a conflict left in the index). */
  conflicted: string[];
}

export interface GitRunner {
  readonly dir: string;
  /** Run `git <args>` in dir; resolves with trimmed stdout, rejects with GitError. */
  run(args: string[], what?: string, opts?: { moment?: string }): Promise<string>;
  /**
   * Like run, but a failure is a value: its most telling line. `raw` keeps stdout as is (a file's text, whose line numbers matter).
   * A call cut by its timeout or a shutdown still rejects (GitTimeoutError): asking a silent remote again only waits longer.
   */
  tryRun(args: string[], opts?: { raw?: boolean; moment?: string }): Promise<{ ok: true; out: string } | { ok: false; detail: string }>;
  /** `git status` parsed (porcelain v1, NUL-separated: a path with spaces or quotes is one path); `args` are extra options and pathspecs. */
  status(args: string[]): Promise<GitStatus>;
  /** stdout byte for byte (a blob's content, which need not be text), or null when git failed; `input` is written to its stdin (`cat-file --batch`). */
  bytes(args: string[], input?: string): Promise<Buffer | null>;
}

/** A git call that was killed: past its timeout, or cut short by a shutdown. */
export class GitTimeoutError extends GitError {
  override name = 'GitTimeoutError';
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
    if (k.toUpperCase().startsWith('GIT_') && !ALLOWED_ENV.includes(k)) continue;
    out[k] = v;
  }
  // A daemon has no terminal: a credential prompt must fail, not hang the tick.
  if (!('GIT_TERMINAL_PROMPT' in out)) out.GIT_TERMINAL_PROMPT = '0';
  // git status takes index.lock to refresh the index when it can: a read must never leave a lock behind.
  out.GIT_OPTIONAL_LOCKS = '0';
  out.GIT_EDITOR = 'true';
  // Messages are matched by nobody, but read by people: one language.
  out.LC_ALL = 'C';
  return out;
}

/** Process groups of git calls in flight: killed if this process exits first. */
const live = new Set<number>();
onCrash(() => {
  for (const g of live) killGroup(g);
});
let exitHook = false;
function track(pid: number): void {
  if (!exitHook) {
    exitHook = true;
    process.on('exit', () => {
      for (const g of live) killGroup(g);
    });
  }
  live.add(pid);
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Gone already.
  }
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms} ms`;
}

interface Exec {
  code: number | null;
  stdout: string;
  stdoutBytes: Buffer;
  stderr: string;
  /** Why it was killed, when it was. */
  killed: string | null;
  /** Why git could not be started (out of descriptors or processes, no git on PATH), when it could not. */
  spawnError: string | null;
}

function errorText(e: unknown): string {
  const code = errnoCode(e);
  const hint =
    code === 'EMFILE' || code === 'ENFILE'
      ? ' (too many open files)'
      : code === 'EAGAIN'
        ? ' (too many processes)'
        : code === 'ENOENT'
          ? ' (is git installed and on PATH?)'
          : '';
  return `${e instanceof Error ? e.message : String(e)}${hint}`;
}

/** Bounded capture of stderr: its first line is all a message uses. */
const MAX_STDERR = 64 * 1024;

function exec(dir: string, env: Record<string, string>, args: string[], limits: GitLimits, moment?: string, input?: string): Promise<Exec> {
  return new Promise((resolve) => {
    const ident = llmgwIdent(limits);
    const full = ['-c', `user.name=${ident.name}`, '-c', `user.email=${ident.email}`, ...args];
    let child: ChildProcess;
    try {
      child = spawn('git', full, { cwd: dir, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    } catch (e) {
      resolve({ code: null, stdout: '', stdoutBytes: Buffer.alloc(0), stderr: '', killed: null, spawnError: errorText(e) });
      return;
    }
    // Out of descriptors (EMFILE, ENFILE), Node reports the failure as an 'error' event on the next
    // turn and sets up no pipes at all: the listener goes first, and every pipe may be missing.
    let spawnError: string | null = null;
    child.on('error', (e) => {
      spawnError = errorText(e);
      // A child that never started emits no 'close'.
      if (child.pid === undefined) done(null);
    });
    // Closed at once (EOF, as 'ignore' gave) unless there is input. A git that exits early closes it: its exit code says why, not an EPIPE.
    child.stdin?.on('error', () => undefined).end(input);
    const out: Buffer[] = [];
    let err = '';
    let killed: string | null = null;
    child.stdout?.on('data', (d: Buffer) => out.push(d));
    child.stderr?.on('data', (d: Buffer) => {
      if (err.length < MAX_STDERR) err += d.toString('utf8');
    });
    const started = Date.now();
    let timer: NodeJS.Timeout | null = null;
    const kill = (why: string) => {
      if (killed !== null) return;
      killed = why;
      if (child.pid !== undefined) killGroup(child.pid);
    };
    const arm = (ms: number, why: string) => {
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => kill(why), Math.max(0, ms));
    };
    arm(limits.timeoutMs, `no answer within ${seconds(limits.timeoutMs)} (git.timeout): killed`);
    const onStop = () => {
      const left = limits.timeoutMs - (Date.now() - started);
      if (left > SHUTDOWN_GRACE_MS) arm(SHUTDOWN_GRACE_MS, `cut short: llmgw is stopping`);
    };
    if (limits.stopping?.aborted) onStop();
    else limits.stopping?.addEventListener('abort', onStop, { once: true });
    const onHalt = () => kill('stopped: llmgw was told to stop now');
    limits.halted?.addEventListener('abort', onHalt, { once: true });
    if (child.pid !== undefined) track(child.pid);
    // Test only (src/util/crash-point.ts): a kill -9 of the service in the middle of this call.
    if (moment !== undefined) crashPoint(moment);
    let finished = false;
    const done = (code: number | null) => {
      if (finished) return;
      finished = true;
      if (timer) clearTimeout(timer);
      limits.stopping?.removeEventListener('abort', onStop);
      limits.halted?.removeEventListener('abort', onHalt);
      if (child.pid !== undefined) live.delete(child.pid);
      const bytes = Buffer.concat(out);
      resolve({ code, stdout: bytes.toString('utf8'), stdoutBytes: bytes, stderr: err, killed, spawnError });
    };
    child.on('close', (code) => done(code));
  });
}

/** Porcelain v1 with NUL separators: `XY path\0`, and for a rename or copy the old path as the next entry. */
export function parseStatus(text: string): GitStatus {
  const entries = text.split('\0');
  const files: GitStatusFile[] = [];
  const conflicted: string[] = [];
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i] ?? '';
    if (e.length < 4 || e.startsWith('## ')) continue;
    const xy = e.slice(0, 2);
    const path = e.slice(3);
    const file: GitStatusFile = { path, xy };
    if (xy[0] === 'R' || xy[0] === 'C') file.from = entries[++i];
    files.push(file);
    if (['DD', 'AU', 'UD', 'UA', 'DU', 'AA', 'UU'].includes(xy)) conflicted.push(path);
  }
  return { files, conflicted };
}

export function createGitRunner(dir: string, env: Record<string, string | undefined>, limits: GitLimits = { timeoutMs: DEFAULT_GIT_TIMEOUT_MS }): GitRunner {
  const childEnv = gitEnv(env);
  async function execChecked(args: string[], moment?: string, input?: string): Promise<Exec> {
    if (limits.halted?.aborted) throw new GitTimeoutError(`git ${args[0] ?? ''}: not started: llmgw was told to stop now`);
    const r = await exec(dir, childEnv, args, limits, moment, input);
    if (r.killed !== null) throw new GitTimeoutError(`git ${args[0] ?? ''}: ${r.killed}`);
    // Never git's answer: a caller asking "does this ref exist" must not hear "no".
    if (r.spawnError !== null) throw new GitError(`git ${args[0] ?? ''}: could not start git: ${r.spawnError}`);
    return r;
  }
  async function tryRun(args: string[], opts: { raw?: boolean; moment?: string } = {}): Promise<{ ok: true; out: string } | { ok: false; detail: string }> {
    const r = await execChecked(args, opts.moment);
    if (r.code === 0) return { ok: true, out: opts.raw ? r.stdout : r.stdout.trim() };
    return { ok: false, detail: firstLine(r.stderr || r.stdout || `exit code ${String(r.code)}`) };
  }
  return {
    dir,
    tryRun,
    async status(args) {
      const r = await tryRun(['status', '--porcelain=v1', '-z', '--untracked-files=all', ...args], { raw: true });
      if (!r.ok) throw new GitError(`git status failed: ${r.detail}`);
      return parseStatus(r.out);
    },
    async bytes(args, input) {
      const r = await execChecked(args, undefined, input);
      return r.code === 0 ? r.stdoutBytes : null;
    },
    async run(args, what, opts = {}) {
      const r = await tryRun(args, opts).catch((err: unknown) => {
        if (err instanceof GitTimeoutError && what !== undefined) throw new GitTimeoutError(`${what} failed: ${err.message.replace(/^git \S+: /, '')}`);
        throw err;
      });
      if (!r.ok) throw new GitError(`${what ?? `git ${args[0] ?? ''}`} failed: ${r.detail}`);
      return r.out;
    },
  };
}

/** `LLMGW_GIT_TIMEOUT` (a duration: 90s, 2m) overrides cluster.yaml's `git.timeout`; null when unset. */
export function gitTimeoutOverride(env: Record<string, string | undefined>, parse: (text: string) => number | null): number | null {
  const text = env.LLMGW_GIT_TIMEOUT;
  if (text === undefined || text === '') return null;
  const ms = parse(text);
  if (ms === null || ms <= 0) throw new GitError(`LLMGW_GIT_TIMEOUT '${text}' is not a duration (e.g. 90s, 2m)`);
  return ms;
}
