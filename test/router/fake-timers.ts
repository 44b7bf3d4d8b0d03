// A hand-driven clock for the router's Timers: nothing fires until the test
// advances it, so ejection, stall and wait rules are tested without wall-clock margins.

import type { TimerHandle, Timers } from '../../src/router/timers.js';

interface Pending {
  at: number;
  fn: () => void;
  seq: number;
}

export class FakeTimers implements Timers {
  private pending = new Set<Pending>();
  private seq = 0;

  constructor(private nowMs = Date.parse('2026-11-29T08:00:00Z')) {}

  now = (): number => this.nowMs;

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const p: Pending = { at: this.nowMs + Math.max(0, ms), fn, seq: this.seq++ };
    this.pending.add(p);
    return p;
  }

  clearTimeout(handle: TimerHandle): void {
    this.pending.delete(handle as Pending);
  }

  /** Move the clock forward by `ms`, running every timer that falls due, in order. */
  advance(ms: number): void {
    const end = this.nowMs + ms;
    for (;;) {
      let next: Pending | null = null;
      for (const p of this.pending) if (p.at <= end && (next === null || p.at < next.at || (p.at === next.at && p.seq < next.seq))) next = p;
      if (next === null) break;
      this.pending.delete(next);
      this.nowMs = Math.max(this.nowMs, next.at);
      next.fn();
    }
    this.nowMs = end;
  }
}
