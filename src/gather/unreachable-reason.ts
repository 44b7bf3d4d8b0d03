// The reason class of a host that did not answer (docs/status.md), from the
// typed error alone: SshError kinds are decided where ssh2's errors are read
// (ssh-errors.ts), so nothing here — or after, in status or the console —
// reads a message's text to tell a changed host key from a timeout.

import { SshError, type SshErrorKind } from '../errors.js';
import type { UnreachableReason } from '../types/snapshot.js';

const BY_KIND: Record<SshErrorKind, UnreachableReason> = {
  timeout: 'timeout',
  refused: 'refused',
  'auth-failed': 'auth',
  'host-key-changed': 'host-key-changed',
  'host-key-unknown': 'host-key-unknown',
  'bad-reply': 'bad-reply',
  'command-failed': 'command-failed',
  // DNS, no route, a handshake that failed, a connection that dropped.
  unreachable: 'network',
};

export function unreachableReason(err: unknown): UnreachableReason {
  return err instanceof SshError ? BY_KIND[err.kind] : 'unknown';
}

export const UNREACHABLE_REASONS: readonly UnreachableReason[] = [
  'timeout',
  'refused',
  'auth',
  'host-key-changed',
  'host-key-unknown',
  'bad-reply',
  'command-failed',
  'network',
  'unknown',
];
