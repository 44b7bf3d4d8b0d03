// One request/reply exchange with a host (docs/protocol.md): the request as JSON on
// stdin, the reply as JSON on stdout, checked against its schema. Whatever the
// host sends back, the outcome is a value or an SshError — never another throw,
// so one bad host cannot spoil a tick. Beyond the schema, reply-checks.ts
// refuses what a schema cannot see (1e999 parsed as Infinity, doubled GPUs).

import { SshError } from '../errors.js';
import type { HostTarget, Transport } from '../types/transport.js';
import { formatSchemaIssues, getValidator, type SchemaName } from '../util/schema.js';
import { numberProblem, replyProblem } from './reply-checks.js';
import { sshError } from './ssh-errors.js';

/** A short, printable excerpt of what came back, for the error message. */
function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return JSON.stringify(flat.length > 40 ? flat.slice(0, 40) + '…' : flat);
}

/**
 * The reply's JSON, or undefined. A login shell that prints a banner on stdout
 * (an rc file's echo, a motd) puts text before the reply: the last line alone
 * is then the reply, as the agent writes its reply as one line, last.
 */
function parseReply(stdout: string): unknown {
  try {
    return JSON.parse(stdout) as unknown;
  } catch {
    const lines = stdout.trimEnd().split('\n');
    const last = lines.at(-1);
    if (lines.length < 2 || last === undefined) return undefined;
    try {
      return JSON.parse(last) as unknown;
    } catch {
      return undefined;
    }
  }
}

export async function callJson<T>(transport: Transport, target: HostTarget, command: string, request: unknown, schema: SchemaName): Promise<T> {
  let stdout: string;
  try {
    stdout = await transport.run(target, command, JSON.stringify(request) + '\n');
  } catch (err) {
    if (err instanceof SshError) throw err;
    throw sshError('unreachable', target, (err as Error | null | undefined)?.message ?? String(err), { cause: err });
  }
  const value = parseReply(stdout);
  if (value === undefined) {
    const what = stdout.trim() === '' ? 'an empty reply' : `a reply that is not JSON: ${excerpt(stdout)}`;
    throw sshError('bad-reply', target, `\`${command}\` gave ${what}`);
  }
  const infinite = numberProblem(value);
  if (infinite !== null) throw sshError('bad-reply', target, `\`${command}\` gave a reply that is not a valid ${schema}: ${infinite}`);
  const result = getValidator(schema)(value);
  if (!result.ok) {
    throw sshError('bad-reply', target, `\`${command}\` gave a reply that is not a valid ${schema}: ${formatSchemaIssues(result.errors, 1)}`);
  }
  const unsound = replyProblem(schema, value);
  if (unsound !== null) throw sshError('bad-reply', target, `\`${command}\` gave a reply that is not a valid ${schema}: ${unsound}`);
  return value as T;
}
