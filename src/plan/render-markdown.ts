// `llmgw plan --format markdown`: a pull-request comment. The summary comes
// first, actions in a table, the STATUS.md diff folded away in <details>.
// A comment has a size limit (GitHub's is 65,536 characters), so long lists are
// cut with "and N more" and the whole stays under MAX_CHARS. Replica ids, model
// names and STATUS.md lines can carry text from nodes: table cells are escaped,
// and the diff sits in a fence longer than any backtick run inside it.

import { codeFence, md } from '../status/escape.js';
import type { Action, Plan } from '../types/plan.js';
import { actionWhy, placementText, sentence, summaryLine } from './render-common.js';

export const MAX_CHARS = 60_000;
const MAX_ACTION_ROWS = 150;
const MAX_UNPLACEABLE_ROWS = 50;
/** Shares of MAX_CHARS the two tables may fill at most; the diff has the rest. */
const ACTIONS_SHARE = 0.5;
const UNPLACEABLE_SHARE = 0.2;
/** A cell's text is clipped before escaping, so one long reason cannot fill the comment. */
const MAX_CELL = 1_000;

function clip(text: string): string {
  return text.length <= MAX_CELL ? text : `${text.slice(0, MAX_CELL)}…`;
}

/** Node names come from cluster.yaml's validated hostlists; a code span keeps their brackets readable. */
function codeCell(text: string): string {
  return '`' + text.replace(/[`|\r\n]/g, '') + '`';
}

function actionRow(a: Action): string {
  const [verb, port, weights] = a.op === 'start' ? ['+ start', String(a.port), a.weights] : ['− stop', '', ''];
  const where = codeCell(clip(placementText(a.placement)));
  return `| ${verb} | ${md(clip(a.replica))} | ${md(clip(a.model))} | ${where} | ${port} | ${weights} | ${md(clip(actionWhy(a)))} |`;
}

/** At most `max` rows and `budget` characters (the "and N more" line included). */
function cut<T>(rows: readonly T[], max: number, budget: number, render: (row: T) => string, more: (n: number) => string): string[] {
  const out: string[] = [];
  let size = more(rows.length).length + 1;
  for (const row of rows.slice(0, max)) {
    const line = render(row);
    if (size + line.length + 1 > budget) break;
    out.push(line);
    size += line.length + 1;
  }
  return out.length < rows.length ? [...out, more(rows.length - out.length)] : out;
}

function diffBlock(diff: string, budget: number): string[] {
  if (diff === '') return ['_STATUS.md would not change._'];
  const lines = diff.replace(/\n$/, '').split('\n');
  const added = lines.filter((l) => l.startsWith('+') && !l.startsWith('+++')).length;
  const removed = lines.filter((l) => l.startsWith('-') && !l.startsWith('---')).length;
  const kept: string[] = [];
  let size = 0;
  for (const line of lines) {
    if (size + line.length + 1 > budget) break;
    kept.push(line);
    size += line.length + 1;
  }
  const body = kept.join('\n');
  const fence = codeFence(body);
  const out = [
    '<details>',
    `<summary>STATUS.md diff (+${added} −${removed})</summary>`,
    '',
    `${fence}diff`,
    body,
    fence,
  ];
  if (kept.length < lines.length) out.push('', `… and ${lines.length - kept.length} more lines of the diff.`);
  out.push('', '</details>');
  return out;
}

export function renderPlanMarkdown(plan: Plan, diff: string): string {
  const out: string[] = ['### llmgw plan', '', `**${summaryLine(plan)}**`];
  if (plan.blocked !== null) out.push('', `> **Blocked:** ${md(clip(sentence(plan.blocked)))}`);
  const actions = [...plan.actions.filter((a) => a.op === 'start'), ...plan.actions.filter((a) => a.op === 'stop')];
  if (actions.length > 0) {
    out.push('', '| | replica | model | where | port | weights | why |', '|---|---|---|---|---|---|---|');
    out.push(...cut(actions, MAX_ACTION_ROWS, MAX_CHARS * ACTIONS_SHARE, actionRow, (n) => `| | … and ${n} more | | | | | |`));
  }
  if (plan.unplaceable.length > 0) {
    out.push('', '**Cannot be placed**', '', '| model | missing | why |', '|---|---|---|');
    out.push(
      ...cut(
        plan.unplaceable,
        MAX_UNPLACEABLE_ROWS,
        MAX_CHARS * UNPLACEABLE_SHARE,
        (u) => `| ${md(clip(u.model))} | ${u.missing} | ${md(clip(u.reason))} |`,
        (n) => `| … and ${n} more | | |`,
      ),
    );
  }
  out.push('');
  const head = out.join('\n');
  // What is left of the limit goes to the diff, less room for its frame.
  const budget = Math.max(0, MAX_CHARS - head.length - 400);
  return head + '\n' + diffBlock(diff, budget).join('\n') + '\n';
}
