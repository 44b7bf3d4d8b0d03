// cluster.yaml's `ssh:` -> SshConfig: the user, key, known_hosts, timeouts and
// bastion llmgw connects with, and the duration rules every timeout shares.

import { DEFAULT_KEEP_OPEN, type ProxyJump, type SshConfig } from '../types/config.js';
import { isDurationSyntax, parseDuration } from './duration.js';
import { int, str, type Raw } from './raw.js';
import type { ResolveContext } from './resolve-context.js';
import { fromEnvNote } from './env-vars.js';
import { insideRepo } from './repo-paths.js';
import { problemAt, type PathSegment, type YamlSource } from './yaml-source.js';
import type { ConfigProblem } from '../types/config.js';

/** What reporting a problem needs. */
export interface ProblemContext {
  src: YamlSource;
  errors: ConfigProblem[];
}

const DEFAULTS = {
  port: 22,
  connectTimeout: '10s',
  commandTimeout: '60s',
  concurrency: 64,
  knownHosts: '~/.ssh/known_hosts',
} as const;

/** Node's timers overflow past this (about 24.8 days) and would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A duration in ms. A malformed one is reported by the schema (its pattern is
 * this grammar); one too large to count in ms is reported here, never replaced
 * by the default without a word.
 */
export function durationAt(ctx: ProblemContext, v: unknown, fallback: string, at: PathSegment[]): number {
  const text = str(v);
  const ms = text === undefined ? null : parseDuration(text);
  if (text !== undefined && ms === null && isDurationSyntax(text)) {
    ctx.errors.push(problemAt(ctx.src, at, 'is too long a duration'));
  }
  return ms ?? (parseDuration(fallback) as number);
}

/** A timeout of 0 would fail every host at once (or, to ssh2, mean none at all): never what was meant. */
export function timeoutAt(ctx: ProblemContext, v: unknown, fallback: string, at: PathSegment[]): number {
  const ms = durationAt(ctx, v, fallback, at);
  if (ms === 0) ctx.errors.push(problemAt(ctx.src, at, 'must be longer than 0s'));
  if (ms > MAX_TIMER_MS) ctx.errors.push(problemAt(ctx.src, at, 'must be at most 24d'));
  return Math.min(ms, MAX_TIMER_MS);
}

function expandHome(path: string, home: string): string {
  if (path === '~') return home;
  if (path.startsWith('~/')) return home.replace(/\/$/, '') + path.slice(1);
  return path;
}

/** `user@host:port`, the grammar of the schema's pattern; a malformed one was reported there. */
function proxyJump(ctx: ResolveContext, v: string | undefined, user: string): ProxyJump | undefined {
  const m = v === undefined ? null : /^(?:([^@:/,\s[\]]+)@)?([^@:/,\s[\]]+)(?::([0-9]{1,5}))?$/.exec(v);
  const host = m?.[2];
  if (!m || host === undefined) return undefined;
  const port = m[3] ? Number(m[3]) : DEFAULTS.port;
  if (port < 1 || port > 65535) {
    ctx.errors.push(problemAt(ctx.src, ['ssh', 'proxyJump'], `port ${port} is not a TCP port (1..65535)`));
    return undefined;
  }
  return { user: m[1] ?? user, host, port };
}

/**
 * A key or known_hosts path: absolute or `~/…`, and outside the config repo
 * (docs/security.md). The value may come from the environment: the message
 * then names the variable, never the path.
 */
function outsidePath(ctx: ResolveContext, written: string | undefined, home: string, key: 'identityFile' | 'knownHosts'): string | undefined {
  if (written === undefined) return undefined;
  const at = ['ssh', key];
  const note = fromEnvNote(ctx.substituted, at);
  // The schema checks what is written; a value from ${VAR} is checked here.
  if (note && !written.startsWith('/') && !written.startsWith('~/')) {
    ctx.errors.push(problemAt(ctx.src, at, `must be an absolute path or start with ~/${note}`));
    return undefined;
  }
  const path = expandHome(written, home);
  if (ctx.repoDir !== undefined && path.startsWith('/') && insideRepo(path, ctx.repoDir, ctx.host.realpath)) {
    ctx.errors.push(problemAt(ctx.src, at, `must be outside the config repo: a file the repo holds is a file a pull request can change${note}`));
  }
  return path;
}

/** `ssh` is cluster.yaml's `ssh:` mapping, `${VAR}`s substituted. */
export function resolveSsh(ctx: ResolveContext, ssh: Raw): SshConfig {
  const home = ctx.env.HOME ?? ctx.host.home;
  const user = str(ssh.user) ?? ctx.env.USER ?? ctx.env.LOGNAME ?? ctx.host.user;
  // '' is an unset ${VAR}, reported where variables are: then the ssh-agent is used.
  const identityFile = outsidePath(ctx, str(ssh.identityFile) || undefined, home, 'identityFile');
  const jump = proxyJump(ctx, str(ssh.proxyJump), user);
  // A path from the environment is the environment's: messages name the variables (docs/security.md).
  const vars = ctx.substituted.find((s) => s.path.length === 2 && s.path[0] === 'ssh' && s.path[1] === 'identityFile')?.vars;
  return {
    user,
    ...(identityFile !== undefined ? { identityFile } : {}),
    ...(identityFile !== undefined && vars !== undefined ? { identityFileLabel: `ssh.identityFile (${vars.join(', ')})` } : {}),
    knownHosts: outsidePath(ctx, str(ssh.knownHosts) ?? DEFAULTS.knownHosts, home, 'knownHosts') ?? expandHome(DEFAULTS.knownHosts, home),
    port: int(ssh.port) ?? DEFAULTS.port,
    connectTimeoutMs: timeoutAt(ctx, ssh.connectTimeout, DEFAULTS.connectTimeout, ['ssh', 'connectTimeout']),
    commandTimeoutMs: timeoutAt(ctx, ssh.commandTimeout, DEFAULTS.commandTimeout, ['ssh', 'commandTimeout']),
    concurrency: int(ssh.concurrency) ?? DEFAULTS.concurrency,
    keepOpen: int(ssh.keepOpen) ?? DEFAULT_KEEP_OPEN,
    ...(jump ? { proxyJump: jump } : {}),
  };
}
