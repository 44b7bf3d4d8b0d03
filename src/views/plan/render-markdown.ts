// `llmgw plan --format markdown`: one pull-request comment of at most
// MAX_CHARS, whatever the fleet, hiding nothing a reviewer must see. Warnings
// first; the summary; this change's actions, then those already pending on
// the base, with a two-line legend of their notation; what cannot be placed;
// what STATUS.md's "Needs attention" still lists after merge (a reviewer
// learns that an unplaceable model stays there, not only that it is not
// placed now); the argv of every new or changed spec; the STATUS.md diff
// folded away. When it does not fit, detail goes before any
// row does: long cells are cut, starts are grouped per model (past 30 rows
// they always are), stops are grouped per model with every id in a compressed
// list — and only past all that are rows left out, saying how many. Warnings
// go last of all: only when they alone overflow (dozens of long ones) are the
// later ones left out, with how many.

import { codeFence, md, mdProse, plainText } from '../../text/markdown-escape.js';
import type { Plan } from '../../types/plan.js';
import { desiredText } from '../../status/scale-rows.js';
import { actionTables, clip, codeCell, unplaceableTable, type Detail } from './markdown-tables.js';
import {
  argvText,
  byCause,
  causeLine,
  fitSummary,
  jobText,
  sentence,
  startsThenStops,
  summaryLine,
  withReadersContext,
  type PlanContext,
} from './render-common.js';

/** GitHub's limit for a comment is 65,536 characters. */
export const MAX_CHARS = 65_000;
/** Past this many starts in one group, they are shown one row per model. */
export const GROUP_STARTS_PAST = 30;
/** A notice (the whole comment when there is no plan) is cut here: the limit holds with every warning beside it. */
const MAX_NOTICE = 20_000;
/** Subjects named per "Needs attention" line of the fleet after merge. */
const MAX_SUBJECTS = 10;
/** Room the diff's frame takes beyond its lines. */
const DIFF_FRAME = 400;

const LEVELS: Detail[] = [
  { startRows: GROUP_STARTS_PAST, stopRows: true, cell: 1_000, ids: Infinity, rows: Infinity },
  { startRows: GROUP_STARTS_PAST, stopRows: true, cell: 200, ids: Infinity, rows: Infinity },
  { startRows: GROUP_STARTS_PAST, stopRows: false, cell: 200, ids: Infinity, rows: Infinity },
  { startRows: 0, stopRows: false, cell: 80, ids: Infinity, rows: Infinity },
];
/** The last resort: every list capped (the count of what is left out is still shown). */
const LAST: Detail = { startRows: 0, stopRows: false, cell: 60, ids: 2_000, rows: Infinity };

/** Escaped text whose `code spans` stay code spans. */
function withCode(text: string): string {
  return text
    .split(/(`[^`]+`)/)
    .map((part, i) => (i % 2 === 1 ? codeCell(part.slice(1, -1)) : md(part)))
    .join('');
}

/** `; does not fit A100, fits H100 (3 full-length sequences)`: the model's fit (docs/placement.md#will-it-fit), when its size is known. */
function fitText(ctx: PlanContext, model: string): string {
  const text = ctx.after?.fit?.[model] ? fitSummary(ctx, model) : null;
  return text === null ? '' : `; ${md(text)}`;
}

function specs(ctx: PlanContext, d: Detail): string[] {
  if (ctx.specs.length === 0) return [];
  const shown = Number.isFinite(d.rows) ? ctx.specs.slice(0, d.rows) : ctx.specs;
  const n = ctx.specs.length;
  const out = ['', '<details>', `<summary>argv of ${n} new or changed spec${n === 1 ? '' : 's'} (once per model)</summary>`];
  for (const s of shown) {
    const argv = clip(argvText(s.argv), d.cell * 20);
    const fence = codeFence(argv);
    out.push('', `**${md(s.model)}** (spec \`${s.spec}\`)${fitText(ctx, s.model)}`, '', `${fence}sh`, argv.replace(/[\r\n]/g, ' '), fence);
  }
  if (shown.length < n) out.push('', `… and ${n - shown.length} more: see models.yaml.`);
  out.push('', '</details>');
  return out;
}

function body(plan: Plan, ctx: PlanContext, d: Detail): string[] {
  const out: string[] = ['### llmgw plan', ''];
  for (const w of ctx.warnings) out.push(`> **Warning:** ${md(clip(sentence(w), 2_000))}`, '');
  if (ctx.notice !== null) return [...out, withCode(clip(ctx.notice, MAX_NOTICE))];
  out.push(`**${summaryLine(plan)}**`);
  if (ctx.base !== null && plan.actions.length > 0) out.push(md(causeLine(plan, ctx.base)));
  if (plan.blocked !== null) out.push('', `> **Blocked:** ${md(clip(sentence(plan.blocked), 2_000))}`);
  if (ctx.base === null) {
    const tables = actionTables(startsThenStops(plan.actions), d);
    if (tables.length > 0) out.push('', ...tables);
  } else {
    const { change, pending } = byCause(plan);
    out.push('', '#### This change', '');
    out.push(...(change.length > 0 ? actionTables(change, d) : ['_It starts and stops nothing by itself._']));
    if (pending.length > 0) {
      out.push(
        '',
        `#### Already pending on ${md(ctx.base)}`,
        '',
        '_The reconciler does these whether or not this merges: drift repair, failed restarts, lost nodes._',
        '',
      );
      out.push(...actionTables(pending, d));
    }
  }
  if (plan.actions.some((a) => a.op === 'start')) out.push(...LEGEND);
  if (plan.unplaceable.length > 0) out.push('', '**Cannot be placed**', '', ...unplaceableTable(plan.unplaceable, d));
  out.push(...stillNeedsAttention(ctx, d));
  const rollouts = plan.rollouts ?? [];
  if (rollouts.length > 0) {
    const shown = Number.isFinite(d.rows) ? rollouts.slice(0, d.rows) : rollouts;
    out.push('', '**Rollouts**', '', ...shown.map((r) => `- ${r.stage === 'failed' ? '**failed** ' : ''}${md(r.model)}: ${md(clip(r.text, d.cell * 2))}`));
    if (shown.length < rollouts.length) out.push(`- … and ${rollouts.length - shown.length} more (llmgw plan --format json lists every one)`);
  }
  out.push(...slurmJobs(plan, d));
  out.push(...onDemand(ctx));
  out.push(...specs(ctx, d));
  return out;
}

/** Jobs mode: the Slurm jobs the plan submits and cancels, by name (docs/slurm.md#jobs-mode-mode-jobs). */
function slurmJobs(plan: Plan, d: Detail): string[] {
  const jobs = plan.slurmJobs ?? [];
  if (jobs.length === 0) return [];
  const shown = Number.isFinite(d.rows) ? jobs.slice(0, d.rows) : jobs;
  const out = ['', '**Slurm jobs**', '', ...shown.map((j) => `- ${codeCell(clip(jobText(j), d.cell))}`)];
  if (shown.length < jobs.length) out.push(`- … and ${jobs.length - shown.length} more (llmgw plan --format json lists every one)`);
  return out;
}

/** What a start row's `where` and `weights` cells mean (docs/commands.md#llmgw-plan), under the tables of a plan that starts anything. */
const LEGEND = [
  '',
  '<sub>`gpu-a02[0-3]` = node gpu-a02, GPU indices 0 to 3 (a replica on several nodes lists each, comma-separated).</sub><br>',
  '<sub>weights: `node` = the chosen node holds them; `fabric` = another node of its fabric does; `none` = no node of its fabric does.</sub>',
];

/** STATUS.md's "Needs attention" as the fleet is left after merge: what this PR does not fix (an unplaceable model stays there). */
function stillNeedsAttention(ctx: PlanContext, d: Detail): string[] {
  const items = ctx.after?.attention ?? [];
  if (items.length === 0) return [];
  const shown = Number.isFinite(d.rows) ? items.slice(0, d.rows) : items;
  // As STATUS.md words them (src/views/status/markdown-blocks.ts), subjects capped: the list itself is one click away.
  const subject = (s: (typeof items)[number]['subjects'][number]) => (s.detail === null ? md(s.name) : `${md(s.name)} (${md(clip(s.detail, d.cell))})`);
  const line = (i: (typeof items)[number]) => {
    const names = i.subjects.slice(0, MAX_SUBJECTS).map(subject);
    const more = i.subjects.length > MAX_SUBJECTS ? `, and ${i.subjects.length - MAX_SUBJECTS} more` : '';
    return names.length === 0 ? `- ${mdProse(i.text)}` : `- ${mdProse(i.text)}: ${names.join(', ')}${more}`;
  };
  const out = ['', '**Still in "Needs attention" after merge**', '', ...shown.map(line)];
  if (shown.length < items.length) out.push(`- … and ${items.length - shown.length} more (llmgw plan --format json: after.attention)`);
  return out;
}

/** Each replicas range and what the committed demand makes of it (docs/config.md#on-demand-models). */
function onDemand(ctx: PlanContext): string[] {
  const ranged = (ctx.after?.models ?? []).filter((m) => m.scale !== undefined);
  if (ranged.length === 0) return [];
  const line = (m: (typeof ranged)[number]) => {
    const s = m.scale;
    const waiting = s && s.waiting > 0 ? `, ${s.waiting} waiting` : '';
    const last = s?.last ? `; last scaled ${s.last.from}→${s.last.to} at ${s.last.at} (${s.last.reason})` : '';
    return `- ${md(`${m.name}: ${desiredText(m)}${waiting}${last}`)}`;
  };
  return ['', '**On-demand models** (range, and the count the committed demand gives)', '', ...ranged.map(line)];
}

function diffBlock(diff: string, budget: number): string[] {
  if (diff === '') return ['_STATUS.md would not change._'];
  // The "before" side is a committed STATUS.md as anybody left it: no control character goes into the comment.
  const lines = diff.replace(/\n$/, '').split('\n').map(plainText);
  const added = lines.filter((l) => l.startsWith('+') && !l.startsWith('+++')).length;
  const removed = lines.filter((l) => l.startsWith('-') && !l.startsWith('---')).length;
  const kept: string[] = [];
  let size = 0;
  for (const line of lines) {
    if (size + line.length + 1 > budget) break;
    kept.push(line);
    size += line.length + 1;
  }
  const text = kept.join('\n');
  const fence = codeFence(text);
  const out = ['<details>', `<summary>STATUS.md diff (+${added} −${removed})</summary>`, '', `${fence}diff`, text, fence];
  const left = lines.length - kept.length;
  if (left > 0) out.push('', `… and ${left} more line${left === 1 ? '' : 's'} of the diff.`);
  out.push('', '</details>');
  return out;
}

const size = (lines: string[]) => lines.reduce((n, l) => n + l.length + 1, 0);

/** The most detailed body that leaves room for the diff's frame; at worst, capped lists. */
function fitting(plan: Plan, ctx: PlanContext): string[] {
  const room = MAX_CHARS - DIFF_FRAME - 200;
  for (const d of LEVELS) {
    const lines = body(plan, ctx, d);
    if (size(lines) <= room) return lines;
  }
  // The most rows per table that still fits (0 rows, counts and headers, does unless the warnings alone overflow).
  const most = Math.max(plan.actions.length, plan.unplaceable.length, ctx.specs.length, (plan.rollouts ?? []).length, (plan.slurmJobs ?? []).length);
  const rows = mostThatFit(most, (k) => size(body(plan, ctx, { ...LAST, rows: k })) <= room);
  const last = body(plan, ctx, { ...LAST, rows });
  return size(last) <= room || ctx.warnings.length === 0 ? last : fewerWarnings(plan, ctx, room);
}

/** The largest k from 0 to `most` for which `fits(k)`, by bisection: `fits` only turns false as k grows; 0 when none does. */
function mostThatFit(most: number, fits: (k: number) => boolean): number {
  let lo = 0;
  let hi = most;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * Warnings are cut to 2,000 characters each but not in number, and every level
 * shows them all; when they alone leave no room (dozens of long ones), the
 * comment keeps the first that fit, then one line saying how many more, with
 * tables of 0 rows (their counts) below.
 */
function fewerWarnings(plan: Plan, ctx: PlanContext, room: number): string[] {
  const n = ctx.warnings.length;
  const first = (k: number): PlanContext => ({
    ...ctx,
    warnings: [...ctx.warnings.slice(0, k), `… and ${n - k} more warning${n - k === 1 ? '' : 's'}: llmgw plan prints every one`],
  });
  const shown = mostThatFit(n - 1, (k) => size(body(plan, first(k), { ...LAST, rows: 0 })) <= room);
  return body(plan, first(shown), { ...LAST, rows: 0 });
}

export function renderPlanMarkdown(plan: Plan, diff: string, context?: Partial<PlanContext>): string {
  const ctx = withReadersContext(context);
  const head = fitting(plan, ctx).join('\n') + '\n';
  if (ctx.notice !== null) return head;
  // What is left of the limit goes to the diff, less room for its frame.
  const budget = Math.max(0, MAX_CHARS - head.length - DIFF_FRAME);
  return head + '\n' + diffBlock(diff, budget).join('\n') + '\n';
}
