// `llmgw run` without the CLI: the loop of loop.ts, with every tick gated by the
// lease of docs/safety.md. Only the holder reconciles; another instance pointed at
// the same remote stands by and takes over once the holder stops renewing. A
// holder whose renewal fails does not tick at all, so it stops applying before
// its lease runs out.

import type { ConfigRepo } from '../git/config-repo.js';
import { releaseLease, takeLease, type LeaseResult } from '../git/lease.js';
import { startLoop, type Loop, type TickReason } from './loop.js';

export interface DaemonOptions {
  repo: ConfigRepo;
  schedule: string;
  watchFiles?: string[];
  debounceMs?: number;
  /** Who this instance is in the lease, e.g. `host:pid`. */
  holder: string;
  /** Must exceed a tick plus clock skew (docs/safety.md). */
  leaseTtlMs: number;
  now: () => Date;
  /** One reconcile tick; called only while this instance holds the lease, and told when it runs out. */
  tick: (reason: TickReason, leaseExpiresAt: Date | undefined) => Promise<void>;
  log: (line: string) => void;
}

export function startDaemon(opts: DaemonOptions): Loop {
  let holding: boolean | null = null;
  let lastHolder = '';

  async function gatedTick(reason: TickReason): Promise<void> {
    let lease: LeaseResult;
    try {
      lease = await takeLease(opts.repo, { holder: opts.holder, ttlMs: opts.leaseTtlMs, now: opts.now() });
    } catch (err) {
      holding = null;
      throw err;
    }
    if (!lease.held) {
      // Say it when it changes, not every tick: a standby may wait for days.
      if (holding !== false || lastHolder !== lease.holder) {
        opts.log(`standing by: the lease is held by ${lease.holder || 'another instance'} until ${lease.expiresAt || 'unknown'}`);
      }
      holding = false;
      lastHolder = lease.holder;
      return;
    }
    if (holding !== true && opts.repo.hasRemote) opts.log(`holding the lease as ${opts.holder} until ${lease.expiresAt}`);
    holding = true;
    // Without a remote there is no one to hand over to: no deadline.
    await opts.tick(reason, opts.repo.hasRemote ? new Date(lease.expiresAt) : undefined);
    if (opts.now().getTime() > Date.parse(lease.expiresAt)) {
      opts.log(`warning: the tick outlasted the lease (${opts.leaseTtlMs / 1000}s): raise --lease-ttl, or another instance may act meanwhile`);
    }
  }

  const loop = startLoop({
    schedule: opts.schedule,
    watchFiles: opts.watchFiles,
    debounceMs: opts.debounceMs,
    tick: gatedTick,
    log: opts.log,
  });
  return {
    ...loop,
    // A holder that stops (SIGTERM, a restart) lets the lease go, as reconcile and
    // apply do, so a standby — or this instance restarted under a new pid — takes
    // over at its next tick instead of after --lease-ttl. A crash still waits out the TTL.
    async stop() {
      await loop.stop();
      if (holding === true && opts.repo.hasRemote) {
        await releaseLease(opts.repo, { holder: opts.holder, now: opts.now() }).catch(() => undefined);
      }
    },
  };
}
