// What went wrong with one host, as a typed SshError. ssh2 reports failures as
// plain Errors with a `level` (and, for sockets, a `code`); this is the one place
// that reads them, so the rest of llmgw only ever sees SshError kinds.

import { SshError, type SshErrorKind } from '../errors.js';
import type { HostTarget } from '../types/transport.js';

/** `gpu-a01 (10.0.0.1:22)`: the name for people, the address for debugging. */
export function hostLabel(target: HostTarget): string {
  return target.name === target.host ? `${target.host}:${target.port}` : `${target.name} (${target.host}:${target.port})`;
}

/** Control characters replaced: a host's text (stderr, its SSH banner) must not drive a terminal. */
function printable(text: string): string {
  // C0, DEL, C1, and the bidi controls that would show a reader other text than the bytes say.
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, '\ufffd');
}

/** One line, whatever the host sent. */
export function sshError(kind: SshErrorKind, target: HostTarget, what: string, options?: ConstructorParameters<typeof SshError>[3]): SshError {
  return new SshError(kind, target.name, printable(`${hostLabel(target)}: ${what}`), options);
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${(ms / 1000).toFixed(1)}s`;
}

const UNREACHABLE_CODES = new Set(['EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EADDRNOTAVAIL']);

/**
 * Map an error from the connect phase. `tcpConnected` tells a host that never
 * answered (no TCP connection) from one that answered and then stalled (no
 * handshake); both are `timeout`, the message says which. `tried` names the
 * user and key a refused login used (`user llmgw with identityFile …`).
 */
export function connectError(err: unknown, target: HostTarget, tcpConnected: boolean, connectTimeoutMs: number, tried?: string): SshError {
  if (err instanceof SshError) return err;
  // Whatever ssh2 or the socket threw: possibly not an Error at all.
  const e = err as (Error & { level?: string; code?: string | number }) | null | undefined;
  const message = (e?.message ?? String(err)).split('\n')[0] ?? '';
  const opts = { cause: err };
  switch (e?.level) {
    case 'client-timeout':
      return tcpConnected
        ? sshError('timeout', target, `no SSH handshake within ${seconds(connectTimeoutMs)} (connectTimeout)`, opts)
        : sshError('timeout', target, `no TCP connection within ${seconds(connectTimeoutMs)} (connectTimeout)`, opts);
    case 'client-authentication':
    case 'agent':
      // Who it tried to be and with which key: a refused login is fixed on one of the two.
      return sshError('auth-failed', target, `authentication failed${tried === undefined ? '' : ` as ${tried}`} (${message})`, opts);
    case 'client-dns':
      return sshError('unreachable', target, `cannot resolve the host name (${message})`, opts);
    case 'client-socket':
      if (e.code === 'ECONNREFUSED') return sshError('refused', target, 'connection refused', opts);
      // The kernel gave up waiting for the host: a timeout, as an operator reads it (docs/status.md).
      if (e.code === 'ETIMEDOUT') return sshError('timeout', target, 'connect ETIMEDOUT', opts);
      if (typeof e.code === 'string' && UNREACHABLE_CODES.has(e.code)) return sshError('unreachable', target, `connect ${e.code}`, opts);
      return sshError('unreachable', target, `connection failed (${message})`, opts);
    default:
      return sshError('unreachable', target, `SSH handshake failed (${message})`, opts);
  }
}

/** `connectTimeout` passed in our own timer (it also covers reaching the host through a bastion). */
export function connectTimeoutError(target: HostTarget, tcpConnected: boolean, connectTimeoutMs: number): SshError {
  return connectError(Object.assign(new Error('timed out'), { level: 'client-timeout' }), target, tcpConnected, connectTimeoutMs);
}

export function commandTimeoutError(target: HostTarget, command: string, commandTimeoutMs: number): SshError {
  return sshError('timeout', target, `\`${command}\` gave no reply within ${seconds(commandTimeoutMs)} (commandTimeout)`);
}

/**
 * The last non-empty line of stderr: usually the one that says why. Control
 * characters are replaced: the line is the host's text, and it reaches
 * terminals (`llmgw status`) where an escape sequence would be obeyed.
 */
export function lastLine(text: string): string {
  const lines = text
    .split(/\r?\n/)
    .map((l) => printable(l).trim())
    .filter((l) => l !== '');
  const line = lines.at(-1) ?? '';
  return line.length > 300 ? line.slice(0, 300) + '…' : line;
}

export function commandFailedError(target: HostTarget, command: string, code: number | null, signal: string | undefined, stderr: string): SshError {
  const how = code !== null ? `exited with code ${code}` : signal ? `was killed by signal ${signal}` : 'ended without an exit status';
  const why = lastLine(stderr);
  return sshError('command-failed', target, `\`${command}\` ${how}${why ? `: ${why}` : ''}`, { exitCode: code, stderr: why });
}
