// The few error classes llmgw throws. Each class carries its own exit code; the
// CLI's one top-level catch (cli/report-error.ts) prints one line and returns
// that code, so no table elsewhere can drift from the classes. Nothing matches
// on message text. Every error exits 1 (docs/commands.md): 2 is not an error,
// it is `plan --detailed-exitcode` saying changes are pending.

import type { ConfigProblem } from './types/config.js';

export class LlmgwError extends Error {
  override name = 'LlmgwError';
  /** Exit code the CLI uses when this reaches the top. */
  readonly exitCode: number = 1;
}

/** Bad command-line usage. */
export class UsageError extends LlmgwError {
  override name = 'UsageError';
  override readonly exitCode = 1;
}

/** A command (or part of one) that is not built yet: says so rather than pretending. */
export class NotImplementedError extends LlmgwError {
  override name = 'NotImplementedError';
  override readonly exitCode = 1;
}

/** The config repo is invalid; carries every problem, each printed on its own line. */
export class ConfigError extends LlmgwError {
  override name = 'ConfigError';
  override readonly exitCode = 1;
  constructor(
    message: string,
    readonly problems: ConfigProblem[] = [],
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export type SshErrorKind = 'unreachable' | 'refused' | 'timeout' | 'auth-failed' | 'host-key-unknown' | 'host-key-changed' | 'command-failed' | 'bad-reply';

/** One host's failure; never fatal to a tick. */
export class SshError extends LlmgwError {
  override name = 'SshError';
  override readonly exitCode = 1;
  constructor(
    readonly kind: SshErrorKind,
    readonly host: string,
    message: string,
    options?: { cause?: unknown; exitCode?: number | null; stderr?: string },
  ) {
    super(message, options);
    this.remoteExitCode = options?.exitCode ?? null;
    this.stderr = options?.stderr ?? '';
  }
  readonly remoteExitCode: number | null;
  readonly stderr: string;
}

export class GitError extends LlmgwError {
  override name = 'GitError';
  override readonly exitCode = 1;
}

/** A file llmgw writes that cannot be written: a full disk, a read-only file system. One line, never a stack. */
export class WriteError extends LlmgwError {
  override name = 'WriteError';
  override readonly exitCode = 1;
}

/** A snapshot, state or other llmgw-written file that cannot be read. */
export class DataError extends LlmgwError {
  override name = 'DataError';
  override readonly exitCode = 1;
}

/** Format a ConfigProblem as docs/config.md prints it. */
export function formatProblem(p: ConfigProblem): string {
  const where = p.path ? `${p.path}: ` : '';
  return `${p.file}:${p.line}:${p.col}: ${where}${p.message}`;
}
