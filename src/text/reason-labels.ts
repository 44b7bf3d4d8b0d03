// How a reason class reads (docs/status.md). The class is data in the snapshot
// and the status JSON; this is only its label in text, STATUS.md and the console.
// A leaf (docs/layers.md), so the keys are not typed against UnreachableReason
// here: every `REASON_LABEL[reason]` fails to compile when a class has no label.

export const REASON_LABEL = {
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
} as const;
