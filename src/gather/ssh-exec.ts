// Run one command on an open connection: the request on stdin, stdout back,
// bounded in time (commandTimeout) and in size (a reply is a report, not a dump).

import type ssh2 from 'ssh2';
import type { HostTarget } from '../types/transport.js';
import { commandFailedError, commandTimeoutError, sshError } from './ssh-errors.js';

/** A report of a thousand-GPU node is tens of KiB; anything near this is not a report. */
const MAX_STDOUT = 16 * 1024 * 1024;
const STDERR_TAIL = 4096;

/** The session could not even start: the connection is dead, so a fresh one may succeed. */
export class ChannelOpenError extends Error {}

export function execCommand(client: ssh2.Client, target: HostTarget, command: string, input: string, timeoutMs: number): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let settled = false;
    let channel: ssh2.ClientChannel | null = null;
    const finish = (err: Error | null, out?: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      client.removeListener('close', onClose);
      if (err) reject(err);
      else resolve(out as string);
    };
    const timer = setTimeout(() => {
      finish(commandTimeoutError(target, command, timeoutMs));
      channel?.close();
    }, timeoutMs);
    // Closed before the session opened: the command never started, so the caller may retry it on a fresh connection.
    const onClose = (): void =>
      finish(channel === null ? new ChannelOpenError('connection closed') : sshError('unreachable', target, `connection lost while running \`${command}\``));
    client.once('close', onClose);
    try {
      client.exec(command, (err, stream) => {
        if (err) {
          finish(new ChannelOpenError(err.message));
          return;
        }
        channel = stream;
        if (settled) {
          stream.close();
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        let stderr = '';
        let code: number | null = null;
        let signal: string | undefined;
        stream.on('data', (d: Buffer) => {
          size += d.length;
          if (size > MAX_STDOUT) {
            finish(sshError('bad-reply', target, `reply larger than ${MAX_STDOUT / 1024 / 1024} MiB`));
            stream.close();
          } else chunks.push(d);
        });
        stream.stderr.on('data', (d: Buffer) => {
          stderr = (stderr + d.toString('utf8')).slice(-STDERR_TAIL);
        });
        stream.on('exit', (c: number | null, s?: string) => {
          code = c;
          signal = s;
        });
        stream.on('error', () => undefined);
        stream.on('close', () => {
          if (code === 0) finish(null, Buffer.concat(chunks).toString('utf8'));
          else finish(commandFailedError(target, command, code, signal, stderr));
        });
        stream.end(input);
      });
    } catch (err) {
      finish(new ChannelOpenError((err as Error).message));
    }
  });
}
