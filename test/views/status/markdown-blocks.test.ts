// The folds that keep STATUS.md readable and bounded for a 4,000-node fleet
// (src/views/status/markdown-blocks.ts): a table shows whole up to MAX_ROWS rows, a
// fold writes at most MAX_FOLDED rows and then says where the rest is, and an
// attention item names up to MAX_SUBJECTS subjects inline.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EVERY_ONE, MAX_FOLDED, MAX_ROWS, MAX_SUBJECTS, attentionLine, foldedTable, rowCells, type Row } from '../../../src/views/status/markdown-blocks.js';
import type { AttentionItem } from '../../../src/status/types.js';
import { fold } from '../../status/blank-report.js';

const HEAD = ['Name', 'Count'];
const SEP = '| --- | ---: |';
const HEAD_LINE = '| Name | Count |';

function rows(n: number, attention = false, prefix = 'r'): Row[] {
  return Array.from({ length: n }, (_, i) => ({ cells: [`${prefix}${i}`, `${i}`], attention }));
}

const line = (r: Row): string => `| ${rowCells(r).join(' | ')} |`;
const summary = (n: number, after: boolean): string => `${n} ${after ? 'more ' : ''}rows`;

test('the limits are the documented ones: 20 rows in a table, 10 names in a line, 500 rows in a fold', () => {
  assert.equal([MAX_ROWS, MAX_SUBJECTS, MAX_FOLDED], [20, 10, 500]);
});

test('a table of exactly MAX_ROWS rows shows whole, with no fold', () => {
  const rs = rows(MAX_ROWS);
  assert.equal(foldedTable(HEAD, ['l', 'r'], rs, summary), [HEAD_LINE, SEP, ...rs.map(line)]);
});

test('one row past MAX_ROWS and none needing attention: the whole table folds under a summary naming all of them', () => {
  const rs = rows(MAX_ROWS + 1);
  assert.equal(foldedTable(HEAD, ['l', 'r'], rs, summary), ['<details><summary>21 rows</summary>', '', HEAD_LINE, SEP, ...rs.map(line), '', '</details>']);
});

test('a fold of exactly MAX_FOLDED rows writes every one and no "… and N more" line', () => {
  const rs = rows(MAX_FOLDED);
  const out = foldedTable(HEAD, ['l', 'r'], rs, summary);
  assert.equal(out, ['<details><summary>500 rows</summary>', '', HEAD_LINE, SEP, ...rs.map(line), '', '</details>']);
  assert.not.ok(out.some((l) => l.includes('… and')));
});

test('past MAX_FOLDED rows a fold writes the first 500 and then says how many more and where they are', () => {
  const rs = rows(MAX_FOLDED + 1);
  const out = foldedTable(HEAD, ['l', 'r'], rs, summary);
  assert.equal(out, [
    '<details><summary>501 rows</summary>',
    '',
    HEAD_LINE,
    SEP,
    ...rs.slice(0, MAX_FOLDED).map(line),
    '',
    `… and 1 more: ${EVERY_ONE}.`,
    '',
    '</details>',
  ]);
  assert.not.ok(out.includes(line(rs[MAX_FOLDED]!)), 'the 501st row is not written');
});

test('rows given as functions: a fold past MAX_FOLDED computes the cells of the rows it writes and of no other (20,000 idle replicas escape 500)', () => {
  let computed = 0;
  const lazy: Row[] = Array.from({ length: MAX_FOLDED + 300 }, (_, i) => ({
    cells: () => {
      computed++;
      return [`r${i}`, `${i}`];
    },
    attention: false,
  }));
  const out = foldedTable(HEAD, ['l', 'r'], lazy, summary);
  assert.is(computed, MAX_FOLDED);
  assert.equal(out, foldedTable(HEAD, ['l', 'r'], rows(MAX_FOLDED + 300), summary));
});

test('rows needing attention show first in an open table; the rest fold, counted after them', () => {
  const quiet = rows(21, false, 'q');
  const loud = rows(2, true, 'a');
  const out = foldedTable(HEAD, ['l', 'r'], [...quiet.slice(0, 5), loud[0]!, ...quiet.slice(5), loud[1]!], summary);
  assert.equal(out, [
    HEAD_LINE,
    SEP,
    line(loud[0]!),
    line(loud[1]!),
    '',
    '<details><summary>21 more rows</summary>',
    '',
    HEAD_LINE,
    SEP,
    ...quiet.map(line),
    '',
    '</details>',
  ]);
});

function item(n: number): AttentionItem {
  return { kind: 'k', text: `${n} nodes lost (placed elsewhere)`, subjects: Array.from({ length: n }, (_, i) => ({ name: `n${i}`, detail: null })) };
}

const names = (from: number, to: number): string => Array.from({ length: to - from }, (_, i) => `n${from + i}`).join(', ');

test('an attention item with exactly MAX_SUBJECTS names lists them all on its one line', () => {
  assert.equal(attentionLine(item(MAX_SUBJECTS)), [`- 10 nodes lost (placed elsewhere): ${names(0, 10)}`]);
});

test('an attention item with no subjects is its headline alone', () => {
  assert.equal(attentionLine({ kind: 'k', text: 'the plan is blocked', subjects: [] }), ['- the plan is blocked']);
});

test('past MAX_SUBJECTS names the rest fold under the item, indented so they stay in its list entry', () => {
  assert.equal(attentionLine(item(12)), [`- 12 nodes lost (placed elsewhere): ${names(0, 10)}, and 2 more:`, ...fold('2 more', [`  ${names(10, 12)}`], '  ')]);
});

test('a fold of exactly MAX_FOLDED names writes every one and no "… and N more" line', () => {
  assert.equal(attentionLine(item(MAX_SUBJECTS + MAX_FOLDED)), [
    `- 510 nodes lost (placed elsewhere): ${names(0, 10)}, and 500 more:`,
    ...fold('500 more', [`  ${names(10, 510)}`], '  '),
  ]);
});

test('past MAX_FOLDED folded names the fold writes 500 and then says how many more and where they are', () => {
  assert.equal(attentionLine(item(MAX_SUBJECTS + MAX_FOLDED + 1)), [
    `- 511 nodes lost (placed elsewhere): ${names(0, 10)}, and 501 more:`,
    ...fold('501 more', [`  ${names(10, 510)}`, '', `  … and 1 more: ${EVERY_ONE}.`], '  '),
  ]);
});

test('a subject name and detail from a node are escaped as Markdown; the headline keeps its parentheses', () => {
  const out = attentionLine({ kind: 'k', text: '1 GPU *unhealthy* (XID)', subjects: [{ name: 'g_1(x)', detail: '<b>|', node: 'g_1(x)' }] });
  assert.equal(out, ['- 1 GPU \\*unhealthy\\* (XID): g\\_1\\(x\\) (&lt;b>\\|)']);
});

test.run();
