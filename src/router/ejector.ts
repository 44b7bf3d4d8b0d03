// Acting on liveness.ts's decisions, per router: counting failures as attempts
// end, sweeping for stalls, taking a replica out of rotation (its waiting
// attempts retried elsewhere, its started streams ended) and putting it back
// when the ejection ends (waking requests that waited for it). Everything
// timed runs on the Timers passed in.

import { isStalled, maxOut, nextEjection, type EjectReason } from './liveness.js';
import type { ModelRoute, RouterState, Upstream } from './table.js';
import type { TimerHandle, Timers } from './timers.js';

/** The stall sweep runs this often at most (and at least every second). */
const MIN_SWEEP_MS = 50;
const MAX_SWEEP_MS = 1_000;

export interface EjectorHooks {
  /** A replica of `model` is back in rotation. */
  onReturn(model: string): void;
  onEject(u: Upstream, reason: EjectReason, untilMs: number): void;
}

export class Ejector {
  private sweepTimer: TimerHandle | null = null;
  private stopped = false;

  constructor(
    private readonly state: RouterState,
    private readonly timers: Timers,
    private readonly hooks: EjectorHooks,
  ) {}

  /** An attempt on `u` ended and was counted (table.ts release): eject it when that made too many failures in a row. */
  ended(u: Upstream, failed: boolean | null): void {
    if (failed !== true) return;
    const route = this.state.models.get(u.model);
    if (!route || !route.upstreams.includes(u)) return;
    if (u.cell.consecutive >= route.settings.consecutiveErrors) this.eject(route, u, 'errors');
  }

  /** Look for stalled replicas: progress is noticed here, by comparing each cell's chunk count with the last sweep's. */
  sweep(): void {
    const now = this.timers.now();
    for (const route of this.state.models.values()) {
      for (const u of route.upstreams) {
        const cell = u.cell;
        if (cell.run?.out) continue;
        if (cell.bytes !== cell.bytesSeen) {
          cell.bytesSeen = cell.bytes;
          cell.quietSinceMs = now;
        } else if (isStalled(cell.streaming, cell.quietSinceMs, now, route.settings.stallAfterMs)) this.eject(route, u, 'stalled');
      }
    }
  }

  /** Run the sweep on the timers until stop(), as often as the shortest stallAfter of the table asks. */
  start(): void {
    const again = (): void => {
      if (this.stopped) return;
      this.sweep();
      this.sweepTimer = this.timers.setTimeout(again, this.sweepEvery());
    };
    this.sweepTimer = this.timers.setTimeout(again, this.sweepEvery());
  }

  stop(): void {
    this.stopped = true;
    if (this.sweepTimer !== null) this.timers.clearTimeout(this.sweepTimer);
  }

  private sweepEvery(): number {
    let shortest = Infinity;
    for (const route of this.state.models.values()) shortest = Math.min(shortest, route.settings.stallAfterMs);
    return Math.max(MIN_SWEEP_MS, Math.min(MAX_SWEEP_MS, Math.floor(shortest / 4)));
  }

  /** Take `u` out of rotation unless that would put more than ⌈n/2⌉ of its model out. */
  eject(route: ModelRoute, u: Upstream, reason: EjectReason): boolean {
    let out = 0;
    for (const other of route.upstreams) if (other.cell.run?.out) out++;
    if (out >= maxOut(route.upstreams.length)) return false;
    const cell = u.cell;
    const now = this.timers.now();
    // A stall began when the replica went quiet, not when the sweep saw it (liveness.ts nextEjection).
    const run = nextEjection(cell.run, reason, now, route.settings.ejectForMs, reason === 'stalled' ? Math.min(now, cell.quietSinceMs) : now);
    cell.run = run;
    cell.consecutive = 0;
    this.timers.setTimeout(() => this.back(u), run.untilMs - now);
    this.hooks.onEject(u, reason, run.untilMs);
    // Copied: an attempt that moves on leaves the set while it is walked.
    for (const attempt of [...cell.attempts]) attempt.onEjected();
    return true;
  }

  private back(u: Upstream): void {
    const cell = u.cell;
    if (!cell.run?.out) return;
    cell.run.out = false;
    cell.consecutive = 0;
    cell.bytesSeen = cell.bytes;
    cell.quietSinceMs = this.timers.now();
    this.hooks.onReturn(u.model);
  }
}
