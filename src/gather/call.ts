// One request/reply exchange with a host (CONTRACT §4): the request as JSON on
// stdin, the reply as JSON on stdout, checked against its schema. Whatever the
// host sends back, the outcome is a value or an SshError — never another throw,
// so one bad host cannot spoil a tick.

import { SshError } from '../errors.js';
import type { HostTarget, Transport } from '../types/transport.js';
import { sshError } from './ssh-errors.js';

// TODO(merge main): replace with getValidator/formatSchemaIssues from src/util/schema.ts.
export type SchemaName = 'agent-report' | 'agent-apply-reply' | 'router-usage' | 'router-endpoints';

function firstProblem(_schema: SchemaName, value: unknown): string | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return '/: must be object';
  if ((value as { version?: unknown }).version !== 1) return '/version: must be equal to constant';
  return null;
}

/** A short, printable excerpt of what came back, for the error message. */
function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return JSON.stringify(flat.length > 40 ? flat.slice(0, 40) + '…' : flat);
}

export async function callJson<T>(transport: Transport, target: HostTarget, command: string, request: unknown, schema: SchemaName): Promise<T> {
  let stdout: string;
  try {
    stdout = await transport.run(target, command, JSON.stringify(request) + '\n');
  } catch (err) {
    if (err instanceof SshError) throw err;
    throw sshError('unreachable', target, (err as Error)?.message ?? String(err), { cause: err });
  }
  let value: unknown;
  try {
    value = JSON.parse(stdout);
  } catch {
    const what = stdout.trim() === '' ? 'an empty reply' : `a reply that is not JSON: ${excerpt(stdout)}`;
    throw sshError('bad-reply', target, `\`${command}\` gave ${what}`);
  }
  const problem = firstProblem(schema, value);
  if (problem !== null) throw sshError('bad-reply', target, `\`${command}\` gave a reply that is not a valid ${schema}: ${problem}`);
  return value as T;
}
