// TEST ONLY: named moments of a tick where the fault-injection suite
// (test/e2e/crash.test.ts, `npm run soak`) kills the process the hard way.
// `LLMGW_CRASH_AT=<moment>[@<ms>][#<n>]` makes the n-th time (default the
// first) this process reaches <moment> a SIGKILL of itself — and of the git it
// runs, as a kill of the whole service would — `ms` after reaching it (for a
// git call: that long into the call). Unset, every function here does nothing.
// Moments: docs/operations.md#crash-only.

interface Spec {
  moment: string;
  delayMs: number;
  nth: number;
}

function parse(text: string | undefined): Spec | null {
  const m = text === undefined ? null : /^([a-z:-]+)(?:@(\d+))?(?:#(\d+))?$/.exec(text);
  return m ? { moment: m[1] ?? '', delayMs: Number(m[2] ?? 0), nth: Number(m[3] ?? 1) } : null;
}

const spec = parse(process.env.LLMGW_CRASH_AT);
let reached = 0;
const beforeDeath: (() => void)[] = [];

/** Something to kill with the process (the runner's git process groups). */
export function onCrash(fn: () => void): void {
  if (spec !== null) beforeDeath.push(fn);
}

function die(): void {
  for (const fn of beforeDeath) fn();
  process.kill(process.pid, 'SIGKILL');
}

/** How long after starting this git call to die, or null: the call is not the chosen moment. */
export function crashDelay(moment: string | undefined): number | null {
  if (spec === null || moment !== spec.moment || ++reached !== spec.nth) return null;
  return spec.delayMs;
}

/** Die here when this is the chosen moment. */
export function crashPoint(moment: string): void {
  const delay = crashDelay(moment);
  if (delay === null) return;
  if (delay === 0) die();
  else setTimeout(die, delay);
}

/** Whether fault injection is on at all (for a test to check it is off by default). */
export function crashArmed(): boolean {
  return spec !== null;
}
