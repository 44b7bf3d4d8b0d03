// GPU-hours of closed UTC days for STATUS.md (docs/status.md#gpu-hours):
// yesterday and the last 7 days, counted exactly as `llmgw report` counts them
// (gpuHoursOf), so `llmgw report --since 1d --until <today>` prints the same
// figures. Only closed days: a day's figures cannot change once it is over, so
// the first tick of a UTC date computes them and every later tick that date
// copies them — STATUS.md never churns on them.

import type { ClosedDaysHours, SpanHours } from '../types/gpu-hours.js';
import type { GitRunner } from '../git/runner.js';
import { readLedgerHistory } from './history.js';
import { gpuHoursOf, type CountedCommit, type GpuHours, type LedgerRange } from './ledger.js';

const DAY_MS = 86_400_000;

/** The UTC date (YYYY-MM-DD) of an ISO time. */
export function utcDay(iso: string): string {
  return new Date(Date.parse(iso)).toISOString().slice(0, 10);
}

/** Yesterday and the last 7 days before `now`'s UTC date, as report ranges. */
export function closedRanges(now: string): { day: string; yesterday: LedgerRange; last7Days: LedgerRange } {
  const day = utcDay(now);
  const midnight = Date.parse(`${day}T00:00:00.000Z`);
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    day,
    yesterday: { since: iso(midnight - DAY_MS), until: iso(midnight) },
    last7Days: { since: iso(midnight - 7 * DAY_MS), until: iso(midnight) },
  };
}

/** idle / (serving + idle) of the figures as shown, two decimals; null when there is nothing to divide. */
export function idleShare(serving: number, idle: number): number | null {
  const held = serving + idle;
  return held > 0 ? Math.round((idle / held) * 100) / 100 : null;
}

function span(h: GpuHours): SpanHours {
  return {
    since: h.since,
    until: h.until,
    models: h.models.map((m) => ({ model: m.model, serving: m.serving, idle: m.idle, idleShare: idleShare(m.serving, m.idle) })),
    fleet: { ...h.fleet, idleShare: idleShare(h.fleet.serving, h.fleet.idle) },
  };
}

/**
 * The closed days before `now`'s UTC date, from llmgw's commits (any order,
 * any reach). Null when no commit is older than that date's midnight: on a
 * reconciler's first day there is no closed day to speak of.
 */
export function closedDays(commits: readonly CountedCommit[], now: string): ClosedDaysHours | null {
  const r = closedRanges(now);
  const midnight = Date.parse(r.yesterday.until);
  if (!commits.some((c) => Date.parse(c.time) < midnight)) return null;
  const yesterday = span(gpuHoursOf(commits, r.yesterday));
  const last7Days = span(gpuHoursOf(commits, r.last7Days));
  const names = [...new Set([...yesterday.models, ...last7Days.models].map((m) => m.model))].sort();
  return { computedOn: r.day, yesterday: withModels(yesterday, names), last7Days: withModels(last7Days, names) };
}

/** Both spans list the same models (0.00 where one had none), as STATUS.md's one table shows them. */
function withModels(s: SpanHours, names: readonly string[]): SpanHours {
  const by = new Map(s.models.map((m) => [m.model, m]));
  return { ...s, models: names.map((model) => by.get(model) ?? { model, serving: 0, idle: 0, idleShare: null }) };
}

/** closedDays from the checkout's history (two git processes, history.ts); warnings are commits that could not be counted. */
export async function readClosedDays(git: GitRunner, now: string): Promise<{ hours: ClosedDaysHours | null; warnings: string[] }> {
  const history = await readLedgerHistory(git, closedRanges(now).last7Days);
  const hours = closedDays(history.commits, now);
  // Before a first closed day there is nothing to count, so nothing to warn of either.
  return { hours, warnings: hours === null ? [] : history.warnings };
}
