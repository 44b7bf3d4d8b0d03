// The router's clock and timers, passed in so tests need no wall-clock margins:
// ejection ends, the stall sweep, wait and write timeouts all run on this, and
// a test drives them with a fake it advances by hand.

export interface Timers {
  /** Epoch milliseconds. A property, not a method: it is passed around unbound (`createRouterState(timers.now)`). */
  now: () => number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

export type TimerHandle = { readonly __timer: unique symbol } | object;

export const realTimers: Timers = {
  now: Date.now,
  setTimeout(fn, ms) {
    // A pending ejection or wait must not keep a stopping process alive.
    return setTimeout(fn, ms).unref();
  },
  clearTimeout(handle) {
    clearTimeout(handle as NodeJS.Timeout);
  },
};
