// Waiting at the router (docs/operations.md#waiting): a request for a known
// model with no replica to send to — none yet (an on-demand model at 0), or
// every one ejected — is held in that model's FIFO until the table gives the
// model a replica or an ejection ends, for at most the model's waitTimeout.
// The reconciler reads the counts in `router usage` as demand, so a model at 0
// wakes because someone is waiting for it. Bounded: at most `max` requests
// wait per router, across all models; over it, or past the timeout, the
// client gets 503 with Retry-After and code `model_starting`.

import type { TimerHandle, Timers } from './timers.js';

export interface Waiter {
  /** The model has a replica again (or the table changed): try to route now. */
  wake(): void;
  /** Waited too long: answer 503. */
  expire(): void;
}

interface Entry {
  readonly waiter: Waiter;
  readonly model: string;
  readonly arrivedMs: number;
  timer: TimerHandle | null;
}

export class WaitRoom {
  private readonly queues = new Map<string, Entry[]>();
  private readonly entries = new Map<Waiter, Entry>();

  constructor(
    readonly max: number,
    private readonly timers: Timers,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /**
   * Hold `waiter` for `model` for at most `timeoutMs` from its first arrival
   * (a request woken that finds nothing again keeps its place in time, not a
   * fresh timeout); false when the room is full.
   */
  add(model: string, waiter: Waiter, timeoutMs: number, arrivedMs = this.timers.now()): boolean {
    if (this.entries.has(waiter)) return true;
    if (this.entries.size >= this.max) return false;
    const entry: Entry = { waiter, model, arrivedMs, timer: null };
    const left = Math.max(0, arrivedMs + timeoutMs - this.timers.now());
    entry.timer = this.timers.setTimeout(() => {
      entry.timer = null;
      if (this.remove(waiter)) waiter.expire();
    }, left);
    this.entries.set(waiter, entry);
    let q = this.queues.get(model);
    if (!q) this.queues.set(model, (q = []));
    q.push(entry);
    return true;
  }

  /** Take `waiter` out (its client left, it was woken); false when it was not waiting. */
  remove(waiter: Waiter): boolean {
    const entry = this.entries.get(waiter);
    if (!entry) return false;
    this.entries.delete(waiter);
    if (entry.timer !== null) this.timers.clearTimeout(entry.timer);
    // Every entry is in its model's queue; the check only narrows.
    const q = this.queues.get(entry.model);
    if (q) {
      q.splice(q.indexOf(entry), 1);
      if (q.length === 0) this.queues.delete(entry.model);
    }
    return true;
  }

  /** Wake every request waiting for `model`, oldest first. */
  wake(model: string): void {
    const q = this.queues.get(model);
    if (!q) return;
    for (const entry of [...q]) {
      if (this.remove(entry.waiter)) entry.waiter.wake();
    }
  }

  /** Wake every waiting request (the table changed). */
  wakeAll(): void {
    for (const model of [...this.queues.keys()]) this.wake(model);
  }

  /** `router usage` `waiting`: models with requests waiting, sorted, with the oldest arrival. */
  usage(): Record<string, { count: number; oldest: string }> {
    const out: Record<string, { count: number; oldest: string }> = {};
    for (const model of [...this.queues.keys()].sort()) {
      // A queue is deleted when it empties: every one listed has a first entry.
      const q = this.queues.get(model);
      const first = q?.[0];
      if (q === undefined || first === undefined) continue;
      out[model] = { count: q.length, oldest: new Date(first.arrivedMs).toISOString() };
    }
    return out;
  }
}
