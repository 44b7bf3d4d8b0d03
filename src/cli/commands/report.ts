// `llmgw report [--repo DIR] [--since 7d|ISO] [--until ISO] [--now ISO] [--format text|json|csv]`
// (docs/commands.md#llmgw-report): GPU-hours per model and for the fleet, from
// the repo's history alone. Reading is src/ledger/history.ts, counting
// src/ledger/ledger.ts (pure), the views src/ledger/render.ts.

import { parseArgs } from 'node:util';
import { parseDuration } from '../../config/duration.js';
import { UsageError } from '../../errors.js';
import { createGitRunner } from '../../git/runner.js';
import { readLedgerHistory } from '../../ledger/history.js';
import { gpuHoursOf } from '../../ledger/ledger.js';
import { renderCsv, renderJson, renderText } from '../../ledger/render.js';
import { escapeTerminal } from '../../text/terminal-text.js';
import { isIsoTime, parseNow, resolveRepoDir } from '../fleet-inputs.js';
import type { Io } from '../io.js';

const HELP = `Usage: llmgw report [--repo DIR] [--since 7d|ISO] [--until ISO] [--now ISO] [--format text|json|csv]

GPU-hours per model (serving, idle, transit) and for the fleet (also free,
unhealthy, other, unreachable, cordoned, unobserved), computed from llmgw's
own commits on the checked-out branch (docs/commands.md#llmgw-report). Between
two of them the fleet is counted as the earlier one saw it, for at most 25
hours; time no commit covers is unobserved.

  --repo DIR      the config repo, a git checkout (default .)
  --since S       start: a duration back from --until (7d, 24h, 1d12h) or an ISO time (default 7d)
  --until ISO     end, exclusive (default: --now)
  --now ISO       the time to count up to by default (default: the clock)
  --format F      text (default), json, or csv (long format: model,bucket,gpu_hours; the fleet as model *)

Exit status: 0 ok, 1 error or invalid input.
`;

type Format = 'text' | 'json' | 'csv';

interface Options {
  repo: string;
  since: string;
  until?: string;
  now?: string;
  format: Format;
  help: boolean;
}

function options(argv: string[]): Options {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        repo: { type: 'string', default: '.' },
        since: { type: 'string', default: '7d' },
        until: { type: 'string' },
        now: { type: 'string' },
        format: { type: 'string', default: 'text' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const format = values.format;
  if (format !== 'text' && format !== 'json' && format !== 'csv') throw new UsageError(`--format ${format}: expected text, json or csv`);
  return { repo: values.repo, since: values.since, until: values.until, now: values.now, format, help: values.help };
}

/** An ISO time given as `flag`, or a UsageError that names the flag. */
function isoTime(flag: string, text: string): number {
  if (!isIsoTime(text))
    throw new UsageError(
      `${flag} ${JSON.stringify(text)}: expected ${flag === '--since' ? 'a duration (7d, 24h) or ' : ''}an ISO time such as 2026-11-29T08:00:00Z`,
    );
  return Date.parse(text);
}

/** [since, until) as UTC ISO times, or a UsageError naming the option. */
export function reportRange(opts: { since: string; until?: string; now?: string }, clock: () => Date = () => new Date()): { since: string; until: string } {
  const nowMs = opts.now === undefined ? clock().getTime() : Date.parse(parseNow(opts.now));
  const untilMs = opts.until === undefined ? nowMs : isoTime('--until', opts.until);
  const back = parseDuration(opts.since);
  const sinceMs = back !== null ? untilMs - back : isoTime('--since', opts.since);
  if (!(sinceMs < untilMs))
    throw new UsageError(`--since must be before --until (${new Date(sinceMs).toISOString()} is not before ${new Date(untilMs).toISOString()})`);
  return { since: new Date(sinceMs).toISOString(), until: new Date(untilMs).toISOString() };
}

export async function run(argv: string[], io: Io): Promise<number> {
  const opts = options(argv);
  if (opts.help) {
    io.stdout.write(HELP);
    return 0;
  }
  // Checked before any git runs: a typo should not wait for a long history.
  const range = reportRange(opts);
  const dir = await resolveRepoDir(io, opts.repo);
  const history = await readLedgerHistory(createGitRunner(dir, io.env), range);
  for (const w of history.warnings) io.stderr.write(`warning: ${escapeTerminal(w)}\n`);
  const hours = gpuHoursOf(history.commits, range);
  io.stdout.write(opts.format === 'json' ? renderJson(hours) : opts.format === 'csv' ? renderCsv(hours) : renderText(hours, escapeTerminal));
  return 0;
}
