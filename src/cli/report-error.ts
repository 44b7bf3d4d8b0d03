import { ConfigError, LlmgwError, UsageError, formatProblem } from '../errors.js';
import { escapeTerminal } from '../text/terminal-text.js';
import type { Io } from './io.js';
import { errnoCode } from '../util/errno.js';

/**
 * The one top-level catch: one clear line per problem, a stack only with --debug.
 * A message may quote a host's stderr, a file or a reply (a JSON parser's
 * excerpt with a newline in it, an escape sequence): it is escaped, so it is
 * one line and nothing in it reaches the terminal as a control (docs/security.md).
 */
export function reportError(err: unknown, io: Io, command: string): number {
  const line = (text: string) => io.stderr.write(escapeTerminal(text) + '\n');
  if (err instanceof ConfigError) {
    for (const p of err.problems) line(formatProblem(p));
    if (err.problems.length === 0) line(`llmgw ${command}: ${err.message}`);
  } else if (err instanceof UsageError || isParseArgsError(err)) {
    // parseArgs explains some mistakes over several lines: one problem, one line.
    line(`llmgw ${command}: ${err.message.replace(/\s*\n\s*/g, ' ')}`);
  } else if (err instanceof LlmgwError) {
    line(`llmgw ${command}: ${err.message}`);
  } else {
    const message = err instanceof Error ? err.message : String(err);
    line(`llmgw ${command}: internal error: ${message}${io.debug ? '' : ' (run with --debug for details)'}`);
  }
  if (io.debug && err instanceof Error && err.stack) for (const l of err.stack.split('\n')) line(l);
  return err instanceof LlmgwError ? err.exitCode : 1;
}

/** node:util parseArgs throws plain TypeErrors for a bad flag; by their code they are usage errors, not internal ones. */
function isParseArgsError(err: unknown): err is Error {
  return err instanceof Error && errnoCode(err)?.startsWith('ERR_PARSE_ARGS_') === true;
}
