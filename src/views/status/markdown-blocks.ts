// The building blocks of STATUS.md that keep a 4,000-node fleet readable:
// tables whose rows needing attention come first and whose rest folds into a
// <details> past MAX_ROWS, and name lists that fold past MAX_SUBJECTS. What
// folds away is still there (a reader opens it); only past MAX_FOLDED rows
// does a list end with where the rest is, so the file stays bounded.

import { md, mdProse } from '../../text/markdown-escape.js';
import type { AttentionItem, AttentionSubject } from '../../status/types.js';

/** A table longer than this folds its rows that need no attention. */
export const MAX_ROWS = 20;
/** A list of subjects longer than this folds the rest. */
export const MAX_SUBJECTS = 10;
/** Rows or names written inside one fold at most; the console and `llmgw status --json` list every one. */
export const MAX_FOLDED = 500;

export const EVERY_ONE = '`llmgw status --json` and `llmgw console` list every one';

export type Align = 'l' | 'r';

export interface Row {
  /** A function for tables of thousands of rows: only the rows written are escaped (most fold away uncounted). */
  cells: string[] | (() => string[]);
  /** Needs attention: shown before the others, and never folded away while there is room. */
  attention: boolean;
}

export function rowCells(r: Row): string[] {
  return typeof r.cells === 'function' ? r.cells() : r.cells;
}

export function table(head: string[], align: Align[], rows: string[][]): string[] {
  const sep = align.map((a) => (a === 'r' ? '---:' : '---'));
  return [head, sep, ...rows].map((cells) => `| ${cells.join(' | ')} |`);
}

/** A fold: the summary line, a blank line (so Markdown inside renders), the body. */
export function details(summary: string, body: string[]): string[] {
  return [`<details><summary>${summary}</summary>`, '', ...body, '', '</details>'];
}

function bounded<T>(rows: T[]): { rows: T[]; more: string[] } {
  if (rows.length <= MAX_FOLDED) return { rows, more: [] };
  return { rows: rows.slice(0, MAX_FOLDED), more: ['', `… and ${rows.length - MAX_FOLDED} more: ${EVERY_ONE}.`] };
}

/**
 * Rows that need attention first (each group in the order given). Up to
 * MAX_ROWS rows show as one table; past that, the attention rows show (up to
 * MAX_ROWS) and the rest fold into a <details> whose summary `folded(n, after)`
 * names them (`after`: some rows show above it).
 */
export function foldedTable(head: string[], align: Align[], rows: Row[], folded: (n: number, after: boolean) => string): string[] {
  const ordered = [...rows.filter((r) => r.attention), ...rows.filter((r) => !r.attention)];
  const cellsOf = (rs: Row[]) => rs.map(rowCells);
  if (ordered.length <= MAX_ROWS) return table(head, align, cellsOf(ordered));
  const shown = Math.min(MAX_ROWS, rows.filter((r) => r.attention).length);
  const open = shown > 0 ? [...table(head, align, cellsOf(ordered.slice(0, shown))), ''] : [];
  const rest = bounded(ordered.slice(shown));
  return [...open, ...details(md(folded(ordered.length - shown, shown > 0)), [...table(head, align, cellsOf(rest.rows)), ...rest.more])];
}

export function subjectText(s: AttentionSubject): string {
  return s.detail === null ? md(s.name) : `${md(s.name)} (${md(s.detail)})`;
}

/** `- headline: a, b, c` and, past MAX_SUBJECTS names, the rest folded under the item. */
export function attentionLine(item: AttentionItem): string[] {
  const names = item.subjects.map(subjectText);
  if (names.length === 0) return [`- ${mdProse(item.text)}`];
  if (names.length <= MAX_SUBJECTS) return [`- ${mdProse(item.text)}: ${names.join(', ')}`];
  const rest = names.slice(MAX_SUBJECTS);
  const kept = rest.slice(0, MAX_FOLDED);
  const tail = rest.length > kept.length ? [`… and ${rest.length - kept.length} more: ${EVERY_ONE}.`] : [];
  const fold = details(`${rest.length} more`, [kept.join(', '), ...(tail.length ? ['', ...tail] : [])]);
  return [`- ${mdProse(item.text)}: ${names.slice(0, MAX_SUBJECTS).join(', ')}, and ${rest.length} more:`, ...fold.map((l) => (l === '' ? '' : `  ${l}`))];
}
