// The holder's guard over an apply (docs/safety.md#fencing, #clocks): every
// changing request carries the lease, and no new changing SSH call starts once
// a node said the lease is stale (`fenced: epoch N < M`) or once
// `expiry − safety` has passed on this clock. A call started before that
// deadline ends (connect plus command timeout, at most `safety`) before the
// lease runs out, so two holders never act at once.

import type { Lease } from '../types/snapshot.js';

export interface ApplyGuard {
  /** Carried by every `agent apply` and `router endpoints` request; undefined for a single instance with no lease. */
  readonly lease: Lease | undefined;
  /** Why no new changing call may start now; null while one may. */
  stop(): string | null;
  /** A node or router refused a request as fenced: the holder stops acting at once. */
  fenced(error: string): void;
  /** The refusal a node gave, once one did. */
  fencedBy(): string | null;
}

/** Whether a node's error is a fencing refusal (docs/protocol.md#fencing names its form). */
export function isFenced(error: string): boolean {
  return error.startsWith('fenced:');
}

export interface GuardOptions {
  lease?: Lease;
  /** When the lease runs out; undefined: no deadline (no one to hand over to). */
  expiresAt?: () => Date | undefined;
  /** How long before expiry the holder stops starting calls: at least the SSH command timeout. */
  safetyMs: number;
  now: () => Date;
}

export function applyGuard(opts: GuardOptions): ApplyGuard {
  let refusal: string | null = null;
  return {
    lease: opts.lease,
    stop() {
      if (refusal !== null) return `fenced by a node (${refusal}): another holder has acted since`;
      const until = opts.expiresAt?.();
      if (until === undefined) return null;
      const deadline = until.getTime() - opts.safetyMs;
      return opts.now().getTime() >= deadline ? `the lease's deadline passed (expiry ${until.toISOString()} less ${Math.ceil(opts.safetyMs / 1000)}s)` : null;
    },
    fenced(error) {
      refusal ??= error;
    },
    fencedBy: () => refusal,
  };
}

/** A guard with no lease and no deadline (a plan applied outside the lease); it still stops at a fencing refusal. */
export function openGuard(): ApplyGuard {
  return applyGuard({ safetyMs: 0, now: () => new Date() });
}
