// Waiting on a condition in tests, never on the clock alone: `check` is polled
// until it gives a value; past a generous bound the test fails naming what it
// waited for.

/** Polls `check` every `everyMs` until it returns a value other than undefined, or fails after `timeoutMs` naming `what`. */
export async function pollUntil<T>(what: string, check: () => T | undefined, timeoutMs: number, everyMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
