// A look taken every interval (the remote poll, the demand watch): never two at
// once — a look still running when the next is due makes that one skip — and a
// stop that waits for the look in flight.

export interface Every<T> {
  /** One look now, as the timer would take it (tests call it directly). */
  step(): Promise<T>;
  /** No more looks; resolves once the one in flight (if any) has ended. */
  stop(): Promise<void>;
}

/** `step` must not reject (it logs its own failures). */
export function every<T>(intervalMs: number, step: () => Promise<T>): Every<T> {
  let looking: Promise<unknown> | null = null;
  const timer = setInterval(() => {
    looking ??= step().finally(() => (looking = null));
  }, intervalMs);
  return {
    step,
    async stop() {
      clearInterval(timer);
      await looking;
    },
  };
}
