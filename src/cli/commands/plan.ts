// `llmgw plan` (docs/commands.md): the dry run a pull request shows. The same
// pipeline as a reconcile — config, fleet model, placement, STATUS.md — from
// a snapshot file, stopping before anything is touched.

import { parseArgs } from 'node:util';
import { UsageError } from '../../errors.js';
import { dryRun } from '../../plan/dry-run.js';
import { renderPlanJson } from '../../plan/render-json.js';
import { renderPlanMarkdown } from '../../plan/render-markdown.js';
import { renderPlanText } from '../../plan/render-text.js';
import type { Io } from '../io.js';
import { readFleetInputs } from '../fleet-inputs.js';
import { wantsColor } from './status.js';

const HELP = `Usage: llmgw plan [--repo DIR] [--observed FILE] [--now ISO] [--format text|json|markdown] [--detailed-exitcode]

The dry run: what would start and stop, what cannot be placed and why, and how
STATUS.md would change. Reads cluster.yaml, models.yaml and .llmgw/state.json
of the repo, and the fleet from --observed FILE (in PR CI that cannot reach the
fleet: the committed .llmgw/observed.json) or else over SSH. Touches nothing.
--now ISO stands in for the clock.

  --format text       one line per action, a summary, the STATUS.md diff (default)
  --format json       the plan as docs/commands.md defines it
  --format markdown   a pull-request comment
  --detailed-exitcode exit 2 when the plan has changes

Exit status: 0 ok, 1 error or invalid config, 2 changes (--detailed-exitcode).
`;

const FORMATS = ['text', 'json', 'markdown'] as const;
type Format = (typeof FORMATS)[number];

interface PlanOptions {
  repo: string;
  observed?: string;
  now?: string;
  format: Format;
  detailedExitcode: boolean;
  help: boolean;
}

function options(argv: string[]): PlanOptions {
  let values;
  try {
    values = parseArgs({
      args: argv,
      options: {
        repo: { type: 'string', default: '.' },
        observed: { type: 'string' },
        now: { type: 'string' },
        format: { type: 'string', default: 'text' },
        'detailed-exitcode': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const format = values.format ?? 'text';
  if (!(FORMATS as readonly string[]).includes(format)) {
    throw new UsageError(`--format must be one of ${FORMATS.join(', ')} (got '${format}')`);
  }
  return {
    repo: values.repo ?? '.',
    observed: values.observed,
    now: values.now,
    format: format as Format,
    detailedExitcode: values['detailed-exitcode'] ?? false,
    help: values.help ?? false,
  };
}

export async function run(argv: string[], io: Io): Promise<number> {
  const opts = options(argv);
  if (opts.help) {
    io.stdout.write(HELP);
    return 0;
  }
  const inputs = await readFleetInputs({ repo: opts.repo, observed: opts.observed, now: opts.now, io });
  const { plan, diff } = dryRun(inputs.config, inputs.snapshot, inputs.state, inputs.now);
  if (opts.format === 'json') io.stdout.write(renderPlanJson(plan));
  else if (opts.format === 'markdown') io.stdout.write(renderPlanMarkdown(plan, diff));
  else io.stdout.write(renderPlanText(plan, diff, { color: wantsColor(io) }));
  return opts.detailedExitcode && plan.changes ? 2 : 0;
}
