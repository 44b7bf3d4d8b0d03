// `llmgw plan` for a terminal, in the spirit of `terraform plan`: warnings
// first, one aligned line per action — every one of them, stops included —
// grouped (with --base: this change's, then those already pending on REF;
// in each, starts then stops), what cannot be placed, a summary line, then the
// STATUS.md diff. Colour only when the caller asks for it.

import { plainText } from '../../text/markdown-escape.js';
import type { Action, Plan } from '../../types/plan.js';
import {
  actionWhy,
  byCause,
  causeLine,
  fitSummary,
  jobText,
  placementText,
  sentence,
  startsThenStops,
  stopVerb,
  summaryLine,
  withReadersContext,
  type PlanContext,
} from './render-common.js';

export interface TextOptions extends Partial<PlanContext> {
  color: boolean;
}

const ANSI = { red: '\x1b[31m', green: '\x1b[32m', yellow: '\x1b[33m', cyan: '\x1b[36m', bold: '\x1b[1m', reset: '\x1b[0m' };
type Paint = keyof typeof ANSI;

interface Row {
  color: Paint;
  verb: string;
  replica: string;
  where: string;
  port: string;
  weights: string;
  why: string;
}

function row(a: Action): Row {
  return {
    color: a.op === 'start' ? 'green' : 'red',
    verb: a.op === 'start' ? '+ start' : `- ${stopVerb(a)}`,
    replica: plainText(a.replica),
    where: placementText(a.placement),
    port: a.op === 'start' ? `port ${a.port}` : '',
    weights: a.op === 'start' ? `weights: ${a.weights}` : '',
    why: `(${plainText(actionWhy(a))})`,
  };
}

/** The plan's lines, or only the notice that stands for it (`notice`: then there is no table and no diff). */
function planLines(plan: Plan, options: TextOptions): { lines: string[]; paint: (color: Paint, text: string) => string; notice: boolean } {
  const ctx = withReadersContext(options);
  const paint = (color: Paint, text: string) => (options.color ? `${ANSI[color]}${text}${ANSI.reset}` : text);
  const lines: string[] = ctx.warnings.map((w) => paint('yellow', `Warning: ${plainText(sentence(w))}`));
  if (lines.length > 0) lines.push('');
  if (ctx.notice !== null) return { lines: [...lines, plainText(ctx.notice)], paint, notice: true };

  const groups: { title: string | null; actions: Action[] }[] = [];
  if (ctx.base === null) groups.push({ title: null, actions: startsThenStops(plan.actions) });
  else {
    const { change, pending } = byCause(plan);
    groups.push({ title: 'This change:', actions: change });
    if (pending.length > 0) groups.push({ title: `Already pending on ${plainText(ctx.base)} (done whether or not this merges):`, actions: pending });
  }
  // One alignment for every group, so the columns line up down the page.
  // Each row built once: 20,000 starts are 20,000 rows.
  const rowsOf = groups.map((g) => g.actions.map(row));
  const all = rowsOf.flat();
  const width = (key: 'verb' | 'replica' | 'where' | 'port' | 'weights') => Math.max(0, ...all.map((r) => r[key].length));
  const w = { verb: width('verb'), replica: width('replica'), where: width('where'), port: width('port'), weights: width('weights') };
  const line = (r: Row) => {
    const cells = [r.verb.padEnd(w.verb), r.replica.padEnd(w.replica), r.where.padEnd(w.where)];
    if (w.port > 0) cells.push(r.port.padEnd(w.port), r.weights.padEnd(w.weights));
    return paint(r.color, `  ${cells.join('  ')}  ${r.why}`);
  };
  for (const [i, g] of groups.entries()) {
    if (i > 0) lines.push('');
    if (g.title !== null) lines.push(paint('bold', g.title));
    if (g.title !== null && g.actions.length === 0) lines.push('  nothing');
    for (const r of rowsOf[i] ?? []) lines.push(line(r));
  }
  for (const u of plan.unplaceable) {
    const what = `${plainText(u.model)} (${u.missing} ${u.missing === 1 ? 'replica' : 'replicas'})`;
    lines.push(paint('yellow', `  ! cannot place  ${what}: ${plainText(u.reason)}`));
  }
  // The fit of each model this plan places or cannot place (docs/placement.md#will-it-fit), one line each.
  const fitted = [...new Set([...plan.actions.filter((a) => a.op === 'start').map((a) => a.model), ...plan.unplaceable.map((u) => u.model)])].sort();
  for (const model of fitted) {
    const text = fitSummary(ctx, model);
    if (text !== null) lines.push(`  = fit  ${plainText(model)}: ${plainText(text)}`);
  }
  for (const r of plan.rollouts ?? []) lines.push(paint(r.stage === 'failed' ? 'red' : 'cyan', `  ~ rollout  ${plainText(r.model)}: ${plainText(r.text)}`));
  // Jobs mode: every Slurm job this plan submits or cancels, by name.
  for (const j of plan.slurmJobs ?? [])
    lines.push(paint(j.op === 'submit' ? 'green' : 'red', `  ${j.op === 'submit' ? '+' : '-'} slurm  ${plainText(jobText(j))}`));
  if (lines.length > 0 && lines[lines.length - 1] !== '') lines.push('');
  lines.push(paint('bold', summaryLine(plan)));
  if (ctx.base !== null && plan.actions.length > 0) lines.push(causeLine(plan, plainText(ctx.base)));
  if (plan.blocked !== null) lines.push(paint('yellow', `Blocked: ${plainText(sentence(plan.blocked))}`));
  return { lines, paint, notice: false };
}

/**
 * The plan's table alone: each action with its node, GPUs, port and weights,
 * what cannot be placed, the summary line. What `llmgw reconcile`, `run` and
 * `demo` print after a tick, and the head of `llmgw plan`.
 */
export function renderPlanTable(plan: Plan, options: TextOptions): string {
  return planLines(plan, options).lines.join('\n') + '\n';
}

export function renderPlanText(plan: Plan, diff: string, options: TextOptions): string {
  const { lines, paint, notice } = planLines(plan, options);
  if (notice) return lines.join('\n') + '\n';
  lines.push('');
  if (diff === '') {
    lines.push('STATUS.md would not change.');
  } else {
    for (const l of diff.replace(/\n$/, '').split('\n').map(plainText)) lines.push(paintDiffLine(l, paint));
  }
  return lines.join('\n') + '\n';
}

function paintDiffLine(line: string, paint: (c: Paint, t: string) => string): string {
  if (line.startsWith('+++') || line.startsWith('---')) return paint('bold', line);
  if (line.startsWith('@@')) return paint('cyan', line);
  if (line.startsWith('+')) return paint('green', line);
  if (line.startsWith('-')) return paint('red', line);
  return line;
}
