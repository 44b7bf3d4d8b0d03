// The console's GPU-hours (docs/commands.md#llmgw-console): the ledger read
// from git history, like `llmgw report` (src/ledger/history.ts), for the last
// 7 closed UTC days and the open one. The commits are counted once per HEAD
// and UTC date (history does not change under a HEAD); only the open day's
// end moves with the clock, and counting is cheap.

import { createGitRunner } from '../git/runner.js';
import { closedRanges } from '../ledger/closed-days.js';
import { dailyHours, type DayHours } from '../ledger/days.js';
import { readLedgerHistory } from '../ledger/history.js';
import type { CountedCommit } from '../ledger/ledger.js';

export interface ConsoleLedger {
  /** False when the directory is no git checkout: there is no history to count. */
  readonly available: boolean;
  /** The days to `now`, and the commits that could not be counted. */
  days(now: string): Promise<{ days: DayHours[]; warnings: string[] }>;
}

export async function openLedger(dir: string): Promise<ConsoleLedger> {
  // No environment, as the history's: the console never needs credentials.
  const git = createGitRunner(dir, { PATH: process.env.PATH, HOME: process.env.HOME });
  const inside = await git.tryRun(['rev-parse', '--show-prefix']);
  if (!inside.ok) return { available: false, days: () => Promise.resolve({ days: [], warnings: [] }) };
  let cache: { key: string; commits: CountedCommit[]; warnings: string[] } | null = null;
  return {
    available: true,
    async days(now) {
      const head = await git.tryRun(['rev-parse', '--verify', '--quiet', 'HEAD']);
      const r = closedRanges(now);
      const key = `${head.ok ? head.out : ''} ${r.day}`;
      if (cache?.key !== key) {
        const h = await readLedgerHistory(git, { since: r.last7Days.since, until: now });
        cache = { key, commits: h.commits, warnings: h.warnings };
      }
      return { days: dailyHours(cache.commits, now), warnings: cache.warnings };
    },
  };
}
