// STATUS.md's GPU-hours for a tick (docs/status.md#gpu-hours): closed UTC days
// only, so the first tick of a UTC date computes them from the history and
// every later tick that date copies them from the STATUS.md before it — read
// back from the file itself, so nothing but STATUS.md holds them, and a plan
// on a shallow checkout copies REF's (carriedGpuHours) with no history at all.

import { DataError, GitError } from '../errors.js';
import type { GitRunner } from '../git/runner.js';
import { readClosedDays, utcDay } from '../ledger/closed-days.js';
import type { ClosedDaysHours } from '../types/gpu-hours.js';
import { parseGpuHoursSection } from '../views/status/index.js';

/**
 * What a preview shows: the section of the STATUS.md it starts from, unchanged;
 * on a later UTC date marked as recomputed by that date's first tick (a plan
 * cannot recompute it: a PR checkout may have no history).
 */
export function carriedGpuHours(before: string | null, now: string): ClosedDaysHours | null {
  const carried = before === null ? null : parseGpuHoursSection(before);
  if (carried === null) return null;
  const { recomputedOn: _shown, ...hours } = carried;
  const today = utcDay(now);
  return hours.computedOn === today ? hours : { ...hours, recomputedOn: today };
}

/**
 * A reconcile tick's GPU-hours: the previous STATUS.md's when it was computed
 * today, else computed now. A history that cannot be read is a warning: the
 * previous figures stay (with their date), and the next tick tries again.
 */
export async function tickGpuHours(previousStatus: string | null, now: string, git: GitRunner, warn: (m: string) => void): Promise<ClosedDaysHours | null> {
  const previous = previousStatus === null ? null : parseGpuHoursSection(previousStatus);
  if (previous !== null && previous.computedOn === utcDay(now) && previous.recomputedOn === undefined) return previous;
  try {
    const { hours, warnings } = await readClosedDays(git, now);
    for (const w of warnings) warn(`GPU-hours: ${w}`);
    return hours;
  } catch (err) {
    if (!(err instanceof DataError) && !(err instanceof GitError)) throw err;
    warn(`GPU-hours not recomputed (${err.message}); the next tick tries again`);
    return previous;
  }
}
