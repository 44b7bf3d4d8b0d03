// SHIM until B1's src/gather/call.ts lands on main: same signature as its
// callJson, without the schema check. Delete after merging main.

import { SshError } from '../errors.js';
import type { HostTarget, Transport } from '../types/transport.js';

export async function callJson<T>(transport: Transport, target: HostTarget, command: string, request: unknown, _schema: string): Promise<T> {
  const out = await transport.run(target, command, JSON.stringify(request));
  try {
    return JSON.parse(out) as T;
  } catch (err) {
    throw new SshError('bad-reply', target.name, `${target.name}: reply is not JSON`, { cause: err });
  }
}
