import { ConfigError, LlmgwError, UsageError, formatProblem } from '../errors.js';
import { escapeTerminal } from '../util/terminal-text.js';
import type { Io } from './io.js';

/** The one top-level catch: one clear line per problem, a stack only with --debug. */
export function reportError(err: unknown, rawIo: Io, command: string): number {
  // A message may quote a host's stderr, a file or a reply: each line is escaped for the terminal (docs/security.md).
  const io = { ...rawIo, stderr: escapedLines(rawIo.stderr) };
  if (err instanceof ConfigError) {
    for (const p of err.problems) io.stderr.write(formatProblem(p) + '\n');
    if (err.problems.length === 0) io.stderr.write(`llmgw ${command}: ${err.message}\n`);
  } else if (err instanceof UsageError || isParseArgsError(err)) {
    // parseArgs explains some mistakes over several lines: one problem, one line.
    io.stderr.write(`llmgw ${command}: ${(err as Error).message.replace(/\s*\n\s*/g, ' ')}\n`);
  } else if (err instanceof LlmgwError) {
    io.stderr.write(`llmgw ${command}: ${err.message}\n`);
  } else {
    const message = err instanceof Error ? err.message : String(err);
    io.stderr.write(`llmgw ${command}: internal error: ${message}${io.debug ? '' : ' (run with --debug for details)'}\n`);
  }
  if (io.debug && err instanceof Error && err.stack) io.stderr.write(err.stack + '\n');
  return err instanceof LlmgwError ? err.exitCode : 1;
}

/** A stream that writes each line given to it escaped, keeping the newlines between lines. */
function escapedLines(out: NodeJS.WritableStream): { write(text: string): boolean } {
  return { write: (text: string) => out.write(text.split('\n').map(escapeTerminal).join('\n')) };
}

/** node:util parseArgs throws plain TypeErrors for a bad flag; by their code they are usage errors, not internal ones. */
function isParseArgsError(err: unknown): err is Error {
  const code = (err as { code?: unknown } | null)?.code;
  return err instanceof Error && typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_');
}
