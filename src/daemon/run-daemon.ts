// `llmgw run` without the CLI: the loop of loop.ts, with every tick gated by the
// lease of docs/safety.md. Only the holder reconciles; another instance pointed at
// the same remote stands by and takes over once the holder stops renewing. A
// holder whose renewal fails does not tick at all, so it stops applying before
// its lease runs out.

import type { LeaseRefs } from '../git/config-repo.js';
import { releaseLease, withLease, type HeldLease } from '../git/lease.js';
import { startLoop, type Loop, type TickReason } from './loop.js';

export interface Daemon extends Loop {
  /**
   * Run `job` between ticks under the lease (renewed for it, its epoch the
   * fence): one at a time with the ticks. False when it did not run: a tick
   * runs, or this instance does not hold the lease (a standby acts on nothing).
   */
  leased(job: (lease: HeldLease) => Promise<void>): Promise<boolean>;
}

export interface DaemonOptions {
  repo: LeaseRefs;
  schedule: string;
  watchFiles?: string[];
  debounceMs?: number;
  /** Who this instance is in the lease: processHolder(), `host:pid:nonce`. */
  holder: string;
  /** Must exceed a tick plus clock skew (docs/safety.md). */
  leaseTtlMs: number;
  now: () => Date;
  /** One reconcile tick; called only while this instance holds the lease, and told when it runs out. */
  tick: (reason: TickReason, leaseExpiresAt: Date | undefined) => Promise<void>;
  log: (line: string) => void;
}

export function startDaemon(opts: DaemonOptions): Daemon {
  let holding: boolean | null = null;
  let lastHolder = '';
  // The lease as the last tick left it (kept across ticks): what a job between ticks acts under while it lasts.
  let held: { expiresAt: Date | undefined; epoch: number } | null = null;

  async function gatedTick(reason: TickReason): Promise<void> {
    // Set inside the lease callback: typed wide so the catch's check is not narrowed to `false`.
    let ticking = false as boolean;
    try {
      // Kept across ticks (keep: true): only a stop lets it go. Without a remote there is no one to hand over to: no deadline.
      // A lease written in this clock's future is said (docs/safety.md#clocks), once per change of holder like the line below.
      const warnings: string[] = [];
      const warn = (m: string) => void warnings.push(m);
      const leased = await withLease(opts.repo, { holder: opts.holder, ttlMs: opts.leaseTtlMs, now: opts.now, keep: true, warn }, async (lease) => {
        for (const w of warnings.splice(0)) opts.log(`warning: ${w}`);
        ticking = true;
        const until = lease.expiresAt();
        held = { expiresAt: until, epoch: lease.epoch() };
        if (holding !== true && until !== undefined) opts.log(`holding the lease as ${opts.holder} until ${until.toISOString()}`);
        holding = true;
        await opts.tick(reason, until);
        if (until !== undefined && opts.now().getTime() > until.getTime()) {
          opts.log(`warning: the tick outlasted the lease (${opts.leaseTtlMs / 1000}s): raise --lease-ttl, or another instance may act meanwhile`);
        }
      });
      if (!leased.held) {
        held = null;
        // Say it when it changes, not every tick: a standby may wait for days.
        if (holding !== false || lastHolder !== leased.holder) {
          for (const w of warnings) opts.log(`warning: ${w}`);
          opts.log(`standing by: the lease is held by ${leased.holder || 'another instance'} until ${leased.expiresAt || 'unknown'}`);
        }
        holding = false;
        lastHolder = leased.holder;
      }
    } catch (err) {
      // The lease could not be read or taken: whether this instance holds it is unknown.
      if (!ticking) [holding, held] = [null, null];
      throw err;
    }
  }

  const loop = startLoop({
    schedule: opts.schedule,
    watchFiles: opts.watchFiles,
    debounceMs: opts.debounceMs,
    tick: gatedTick,
    log: opts.log,
  });
  async function leased(job: (lease: HeldLease) => Promise<void>): Promise<boolean> {
    if (holding !== true) return false;
    let ran = false;
    const kept = held;
    // Well inside the lease the last tick took or renewed: act under it as it stands (no git round trip on the way
    // to a waiting user); the job's guard still stops at expiry − safety. Past half its TTL it is renewed first.
    if (kept !== null && (kept.expiresAt === undefined || kept.expiresAt.getTime() - opts.now().getTime() > opts.leaseTtlMs / 2)) {
      const lease: HeldLease = { holder: opts.holder, expiresAt: () => kept.expiresAt, epoch: () => kept.epoch };
      return loop.exclusive(async () => {
        await job(lease);
      });
    }
    const free = await loop.exclusive(async () => {
      const r = await withLease(opts.repo, { holder: opts.holder, ttlMs: opts.leaseTtlMs, now: opts.now, keep: true }, async (lease) => {
        ran = true;
        held = { expiresAt: lease.expiresAt(), epoch: lease.epoch() };
        await job(lease);
      });
      // Taken over since the last tick: the next tick says so and stands by.
      if (!r.held) [holding, held] = [false, null];
    });
    return free && ran;
  }

  return {
    ...loop,
    leased,
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
