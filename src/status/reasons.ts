// How a reason class reads (docs/status.md). The class is data in the snapshot
// and the status JSON; this is only its label in text, STATUS.md and the console.

import type { UnreachableReason } from '../types/snapshot.js';

export const REASON_LABEL: Record<UnreachableReason, string> = {
  timeout: 'timeout',
  refused: 'refused',
  auth: 'auth',
  // Possibly an attack: said as loudly as the class allows.
  'host-key-changed': 'host key changed',
  'host-key-unknown': 'host key unknown',
  'bad-reply': 'bad reply',
  'command-failed': 'command failed',
  network: 'network',
  unknown: 'unknown',
};
