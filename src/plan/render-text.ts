// `llmgw plan` for a terminal, in the spirit of `terraform plan`: one aligned
// line per action, grouped (starts, stops, what cannot be placed), a summary
// line, then the STATUS.md diff. Colour only when the caller asks for it.

import { plainText } from '../status/escape.js';
import type { Plan } from '../types/plan.js';
import { actionWhy, placementText, sentence, summaryLine } from './render-common.js';

export interface TextOptions {
  color: boolean;
}

const ANSI = { red: '\x1b[31m', green: '\x1b[32m', yellow: '\x1b[33m', cyan: '\x1b[36m', bold: '\x1b[1m', reset: '\x1b[0m' };
type Paint = keyof typeof ANSI;

export function renderPlanText(plan: Plan, diff: string, options: TextOptions): string {
  const paint = (color: Paint, text: string) => (options.color ? `${ANSI[color]}${text}${ANSI.reset}` : text);
  const rows = [
    ...plan.actions.filter((a) => a.op === 'start'),
    ...plan.actions.filter((a) => a.op === 'stop'),
  ].map((a) => ({
    color: (a.op === 'start' ? 'green' : 'red') as Paint,
    verb: a.op === 'start' ? '+ start' : '- stop',
    replica: plainText(a.replica),
    where: placementText(a.placement),
    port: a.op === 'start' ? `port ${a.port}` : '',
    weights: a.op === 'start' ? `weights: ${a.weights}` : '',
    why: `(${plainText(actionWhy(a))})`,
  }));
  const width = (key: 'verb' | 'replica' | 'where' | 'port' | 'weights') => Math.max(0, ...rows.map((r) => r[key].length));
  const w = { verb: width('verb'), replica: width('replica'), where: width('where'), port: width('port'), weights: width('weights') };
  const lines: string[] = [];
  for (const r of rows) {
    const cells = [r.verb.padEnd(w.verb), r.replica.padEnd(w.replica), r.where.padEnd(w.where)];
    if (w.port > 0) cells.push(r.port.padEnd(w.port), r.weights.padEnd(w.weights));
    lines.push(paint(r.color, `  ${cells.join('  ')}  ${r.why}`));
  }
  for (const u of plan.unplaceable) {
    const what = `${plainText(u.model)} (${u.missing} ${u.missing === 1 ? 'replica' : 'replicas'})`;
    lines.push(paint('yellow', `  ! cannot place  ${what}: ${plainText(u.reason)}`));
  }
  if (lines.length > 0) lines.push('');
  lines.push(paint('bold', summaryLine(plan)));
  if (plan.blocked !== null) lines.push(paint('yellow', `Blocked: ${plainText(sentence(plan.blocked))}`));
  lines.push('');
  if (diff === '') {
    lines.push('STATUS.md would not change.');
  } else {
    for (const line of diff.replace(/\n$/, '').split('\n').map(plainText)) lines.push(paintDiffLine(line, paint));
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
