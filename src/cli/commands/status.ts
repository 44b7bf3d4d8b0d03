// `llmgw status [--repo DIR] [--observed F] [--now T] [--format text|json|markdown] [--json]`
// (docs/commands.md): the fleet summary. `markdown` prints exactly what STATUS.md
// would hold; `json` is the status JSON; `text` is for a terminal.

import { parseArgs } from 'node:util';
import { UsageError } from '../../errors.js';
import { renderStatusJson, renderStatusMarkdown, renderStatusText } from '../../views/status/index.js';
import { statusOf } from '../../tick/render.js';
import { runTick } from '../../tick/run.js';
import { carriedGpuHours } from '../../tick/gpu-hours.js';
import { committedStatus } from '../../store/read.js';
import { readFleetInputs, resolveRepoDir } from '../fleet-inputs.js';
import type { Io } from '../io.js';

const HELP = `Usage: llmgw status [--repo DIR] [--observed FILE] [--now ISO] [--format text|json|markdown] [--json]

The fleet summary: GPU capacity per class, free whole nodes per fabric, models
and replicas, what cannot be placed, idle replicas, weights per fabric, and the
nodes that need attention.

  --repo DIR        the config repo (default .)
  --observed FILE   read the fleet from this snapshot instead of gathering over SSH
                    (e.g. the repo's .llmgw/observed.json)
  --now ISO         the time to judge the snapshot at (default: the clock)
  --format F        text (default), json, or markdown (exactly what STATUS.md would hold)
  --json            the same as --format json

Text is coloured on a terminal unless NO_COLOR is set.
`;

type Format = 'text' | 'json' | 'markdown';

interface Options {
  repo: string;
  observed?: string;
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
        observed: { type: 'string' },
        now: { type: 'string' },
        format: { type: 'string' },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const format = values.format ?? (values.json ? 'json' : 'text');
  if (format !== 'text' && format !== 'json' && format !== 'markdown') {
    throw new UsageError(`--format ${format}: expected text, json or markdown`);
  }
  if (values.json && format !== 'json') throw new UsageError(`--json and --format ${format} disagree`);
  return { repo: values.repo, observed: values.observed, now: values.now, format, help: values.help };
}

/** Colour for a terminal, unless NO_COLOR is set to anything (no-color.org). */
export function wantsColor(io: Io): boolean {
  return io.stdout.isTTY === true && !io.env.NO_COLOR;
}

export async function run(argv: string[], io: Io): Promise<number> {
  const opts = options(argv);
  if (opts.help) {
    io.stdout.write(HELP);
    return 0;
  }
  const f = await readFleetInputs({ repo: opts.repo, observed: opts.observed, now: opts.now, io });
  // The tick's preview on the same inputs as `llmgw plan`, rendered as observed (its "before"):
  // on the committed snapshot and state at its observedAt, exactly the STATUS.md that tick committed.
  const { preview } = await runTick({ kind: 'preview', config: f.config, fleet: f.fleet, state: f.state, now: f.now, before: null }).finally(() => f.done());
  const { fleet, state, plan } = preview.planned;
  // GPU-hours of closed days as the checkout's STATUS.md has them (docs/status.md#gpu-hours).
  const gpuHours = carriedGpuHours(await committedStatus(await resolveRepoDir(io, opts.repo)), f.now);
  const report = gpuHours === null ? statusOf(fleet, state, plan) : { ...statusOf(fleet, state, plan), gpuHours };
  const out =
    opts.format === 'json'
      ? renderStatusJson(report)
      : opts.format === 'markdown'
        ? renderStatusMarkdown(report)
        : renderStatusText(report, { color: wantsColor(io) });
  io.stdout.write(out);
  return 0;
}
