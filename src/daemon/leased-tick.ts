// One tick under the lease (docs/safety.md), taken for the tick and let go after:
// what `llmgw reconcile` and `llmgw demo` do, so neither ever races a running
// `llmgw run` on the same remote. (`llmgw run` keeps its lease across ticks
// instead: see run-daemon.ts.)

import { releaseLease, takeLease } from '../git/lease.js';
import { runTick, type TickOptions } from './tick.js';
import type { TickResult } from './tick-result.js';

/** Longer than any sane tick; let go as soon as the tick ends. */
const LEASE_TTL_MS = 10 * 60_000;

export type LeasedTick = { held: true; result: TickResult } | { held: false; holder: string; expiresAt: string };

export async function leasedTick(opts: Omit<TickOptions, 'leaseExpiresAt'> & { holder: string }): Promise<LeasedTick> {
  const { repo, holder } = opts;
  const lease = await takeLease(repo, { holder, ttlMs: LEASE_TTL_MS, now: opts.now() });
  if (!lease.held) return { held: false, holder: lease.holder, expiresAt: lease.expiresAt };
  try {
    const result = await runTick({ ...opts, leaseExpiresAt: repo.hasRemote ? new Date(lease.expiresAt) : undefined });
    return { held: true, result };
  } finally {
    // A lease that expires now is free for the next instance at once.
    await releaseLease(repo, { holder, now: opts.now() }).catch(() => undefined);
  }
}
