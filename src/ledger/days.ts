// GPU-hours day by day, for the console's GPU-hours page (docs/commands.md#llmgw-console):
// the closed UTC days before `now`'s date and the open one up to `now`, each
// counted as `llmgw report` counts that day (gpuHoursOf). The open day's last
// interval runs to `now` at the last commit's fleet, as a report to `now` does.

import { closedRanges } from './closed-days.js';
import { gpuHoursOf, type CountedCommit, type GpuHours } from './ledger.js';

const DAY_MS = 86_400_000;

export interface DayHours extends GpuHours {
  /** The UTC date, YYYY-MM-DD. */
  day: string;
  /** Today: counted to `now`, still growing. */
  open: boolean;
}

/** `closed` UTC days before `now`'s date, then the open day to `now`, oldest first. */
export function dailyHours(commits: readonly CountedCommit[], now: string, closed = 7): DayHours[] {
  const midnight = Date.parse(closedRanges(now).yesterday.until);
  const out: DayHours[] = [];
  for (let k = closed; k >= 0; k--) {
    const since = midnight - k * DAY_MS;
    const until = k === 0 ? Math.max(since, Date.parse(now)) : since + DAY_MS;
    const day = new Date(since).toISOString().slice(0, 10);
    out.push({ ...gpuHoursOf(commits, { since: new Date(since).toISOString(), until: new Date(until).toISOString() }), day, open: k === 0 });
  }
  return out;
}
