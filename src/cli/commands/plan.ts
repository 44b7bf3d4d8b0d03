// `llmgw plan` (docs/commands.md): the dry run a pull request shows — the
// tick in its preview mode (src/tick/run.ts: observe, plan, project, render),
// which stops before the apply. With --base REF everything but the branch's config comes from REF,
// and each action says whether this change causes it.

import { parseArgs } from 'node:util';
import { STATUS_FILE } from '../../store/files.js';
import { UsageError } from '../../errors.js';
import type { PlanContext } from '../../views/plan/render-common.js';
import { renderPlanJson } from '../../views/plan/render-json.js';
import { renderPlanMarkdown } from '../../views/plan/render-markdown.js';
import { renderPlanText } from '../../views/plan/render-text.js';
import type { Before } from '../../tick/preview.js';
import { runTick, type Gather } from '../../tick/run.js';
import type { Config } from '../../types/config.js';
import type { Plan } from '../../types/plan.js';
import type { Snapshot } from '../../types/snapshot.js';
import type { State } from '../../types/state.js';
import { committedStatus } from '../../store/read.js';
import { readBaseInputs } from '../base-inputs.js';
import { readFleetInputs, resolveRepoDir } from '../fleet-inputs.js';
import type { Io } from '../io.js';
import { wantsColor } from './status.js';

const HELP = `Usage: llmgw plan [--repo DIR] [--base REF] [--observed FILE] [--now ISO]
                  [--format text|json|markdown] [--detailed-exitcode] [--check-survive]

The dry run: what would start and stop, what cannot be placed and why, and how
STATUS.md would change — the same plan, projection and STATUS.md a reconcile
tick makes, stopping before anything is touched. Reads cluster.yaml and
models.yaml of the repo (docs/commands.md).

  --base REF          plan a pull request against REF (e.g. origin/main): the
                      snapshot, state.json and the "before" STATUS.md are read
                      from REF, never from the branch (a branch that edits them
                      is warned about); each action is "change" (this branch
                      causes it) or "pending" (REF does it anyway). A REF never
                      reconciled has no snapshot: the config is still checked.
  --observed FILE     the fleet from this snapshot file; without it and without
                      --base, the fleet is gathered over SSH
  --now ISO           stands in for the clock
  --format text       one line per action, a summary, the STATUS.md diff (default)
  --format json       the plan as docs/commands.md defines it, with "after"
  --format markdown   a pull-request comment (at most 65,000 characters)
  --detailed-exitcode exit 2 when the plan has changes
  --check-survive     exit 3 when a model would not outlive what its models.yaml
                      survive: names (docs/placement.md#survive); before exit 2

Without --base the "before" side of the STATUS.md diff is the repo's STATUS.md
(the fleet as observed when there is none), and every action is "change".
The pull-request workflow: examples/ci (plan --base origin/<base> --format markdown).

Exit status: 0 ok, 1 error or invalid config, 2 changes (--detailed-exitcode),
3 a survive: broken (--check-survive).
`;

const FORMATS = ['text', 'json', 'markdown'] as const;
type Format = (typeof FORMATS)[number];

interface PlanOptions {
  repo: string;
  base?: string;
  observed?: string;
  now?: string;
  format: Format;
  detailedExitcode: boolean;
  checkSurvive: boolean;
  help: boolean;
}

function options(argv: string[]): PlanOptions {
  let values;
  try {
    values = parseArgs({
      args: argv,
      options: {
        repo: { type: 'string', default: '.' },
        base: { type: 'string' },
        observed: { type: 'string' },
        now: { type: 'string' },
        format: { type: 'string', default: 'text' },
        'detailed-exitcode': { type: 'boolean', default: false },
        'check-survive': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const format = values.format;
  if (!(FORMATS as readonly string[]).includes(format)) {
    throw new UsageError(`--format must be one of ${FORMATS.join(', ')} (got '${format}')`);
  }
  if (values.base === '') throw new UsageError('--base needs a ref, e.g. --base origin/main');
  return {
    repo: values.repo,
    base: values.base,
    observed: values.observed,
    now: values.now,
    format: format as Format,
    detailedExitcode: values['detailed-exitcode'],
    checkSurvive: values['check-survive'],
    help: values.help,
  };
}

/** Everything the tick's preview needs, from the branch and REF, or from the working tree. */
interface Inputs {
  config: Config;
  /** null: REF was never reconciled, there is nothing to plan on. */
  fleet: Snapshot | Gather | null;
  state: State;
  now: string;
  before: Before | null;
  /** REF's config planned on the same inputs decides the causes; undefined without --base. */
  baseConfig?: Config | null;
  ref: string | null;
  warnings: string[];
  done(): Promise<void>;
}

async function inputs(opts: PlanOptions, io: Io): Promise<Inputs> {
  if (opts.base !== undefined) {
    const b = await readBaseInputs({ repo: opts.repo, base: opts.base, observed: opts.observed, now: opts.now, io });
    const before = b.baseStatus === null ? null : { text: b.baseStatus, label: `STATUS.md (${b.ref})` };
    const done = (): Promise<void> => Promise.resolve();
    return { config: b.config, fleet: b.snapshot, state: b.state, now: b.now, before, baseConfig: b.baseConfig, ref: b.ref, warnings: b.warnings, done };
  }
  const f = await readFleetInputs({ repo: opts.repo, observed: opts.observed, now: opts.now, io });
  // What readers of the repo see today: its STATUS.md, when it has one.
  const current = await committedStatus(await resolveRepoDir(io, opts.repo)).catch(async (err: unknown) => {
    await f.done();
    throw err;
  });
  return { ...f, before: current === null ? null : { text: current, label: STATUS_FILE }, ref: null, warnings: [] };
}

function render(format: Format, plan: Plan, diff: string, ctx: Partial<PlanContext>, io: Io): string {
  if (format === 'json') return renderPlanJson(plan, ctx);
  if (format === 'markdown') return renderPlanMarkdown(plan, diff, ctx);
  return renderPlanText(plan, diff, { ...ctx, color: wantsColor(io) });
}

const EMPTY: Plan = { version: 1, changes: false, blocked: null, actions: [], unplaceable: [] };

export async function run(argv: string[], io: Io): Promise<number> {
  const opts = options(argv);
  if (opts.help) {
    io.stdout.write(HELP);
    return 0;
  }
  const input = await inputs(opts, io);
  if (input.fleet === null) {
    const notice = `The config is valid. ${String(input.ref)} has no .llmgw/observed.json yet: placements appear once the fleet has been observed by a first \`llmgw reconcile\`.`;
    io.stdout.write(render(opts.format, EMPTY, '', { base: input.ref, warnings: input.warnings, notice }, io));
    return 0;
  }
  const { preview, specs } = await runTick({
    kind: 'preview',
    config: input.config,
    fleet: input.fleet,
    state: input.state,
    now: input.now,
    before: input.before,
    baseConfig: input.baseConfig,
  }).finally(() => input.done());
  const ctx: Partial<PlanContext> = { base: input.ref, warnings: input.warnings, specs, after: preview.after.report };
  io.stdout.write(render(opts.format, preview.plan, preview.diff, ctx, io));
  if (opts.checkSurvive && (preview.after.report.surviveWarnings ?? []).length > 0) return 3;
  return opts.detailedExitcode && preview.plan.changes ? 2 : 0;
}
