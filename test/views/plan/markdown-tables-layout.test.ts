// How the markdown plan's action tables are laid out (docs/commands.md plan,
// Formats): a table only when it has rows, one blank line between two tables,
// past d.rows one row saying how many are left out; starts grouped per model
// with their weights tiers; cells cut with "…" and code spans nothing can close.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { actionTables, clip, codeCell, unplaceableTable, type Detail } from '../../../src/views/plan/markdown-tables.js';
import type { StartAction, StopAction, WeightsLocality } from '../../../src/types/plan.js';

/** Starts in rows, stops grouped, nothing cut, nothing left out. */
const D: Detail = { startRows: 30, stopRows: false, cell: 1_000, ids: Infinity, rows: Infinity };

const ACTION_HEAD = ['| | replica | model | where | port | weights | why |', '|---|---|---|---|---|---|---|'];
const START_HEAD = ['| + start, per model | replicas | nodes | weights |', '|---|---:|---|---|'];
const STOP_HEAD = ['| − stop, per model | replicas | ids | nodes | why |', '|---|---:|---|---|---|'];

function start(i: number, model = 'm', weights: WeightsLocality = 'none'): StartAction {
  return { op: 'start', replica: `${model}-${i}`, model, port: 8000 + i, placement: [{ node: `gpu-${i}`, gpus: [0] }], weights, reason: 'missing' };
}
function stop(i: number, model = 'old'): StopAction {
  return { op: 'stop', replica: `${model}-${i}`, model, placement: [{ node: `gpu-${i}`, gpus: [0, 1] }], reason: 'not in models.yaml', waitFor: [] };
}
const startRow = (i: number, model = 'm', weights = 'none') => `| + start | ${model}-${i} | ${model} | \`gpu-${i}[0]\` | ${8000 + i} | ${weights} | missing |`;

test('no actions: no table at all, not even a header', () => {
  assert.equal(actionTables([], D), []);
  assert.equal(actionTables([], { ...D, stopRows: true }), []);
});

test('only stops, grouped: the stop table alone, with no empty action table and no blank line above it', () => {
  assert.equal(actionTables([stop(1), stop(2)], D), [...STOP_HEAD, '| old | 2 | `old-[1-2]` | `gpu-[1-2]` | not in models.yaml |']);
});

test('only starts, stops grouped: the action table alone, with no empty stop table below it', () => {
  assert.equal(actionTables([start(1)], D), [...ACTION_HEAD, startRow(1)]);
});

test('starts in rows and stops grouped: the two tables with one blank line between them', () => {
  assert.equal(actionTables([start(1), stop(2)], D), [...ACTION_HEAD, startRow(1), '', ...STOP_HEAD, '| old | 1 | `old-2` | `gpu-2` | not in models.yaml |']);
});

test('starts grouped per model, sorted by model, with weights tiers in the order node, fabric, none and only those that occur', () => {
  const starts = [
    start(1, 'zeta', 'none'),
    start(2, 'zeta', 'node'),
    start(3, 'zeta', 'none'),
    start(4, 'zeta', 'fabric'),
    start(5, 'alpha', 'none'),
    start(6, 'mu', 'fabric'),
  ];
  assert.equal(actionTables(starts, { ...D, startRows: 0 }), [
    ...START_HEAD,
    '| alpha | 1 | `gpu-5` | none 1 |',
    '| mu | 1 | `gpu-6` | fabric 1 |',
    '| zeta | 4 | `gpu-[1-4]` | node 1, fabric 1, none 2 |',
  ]);
});

test('past d.rows rows, the action table shows the first d.rows and one row says how many more, with a cell for each of the 7 columns', () => {
  const starts = [1, 2, 3, 4, 5].map((i) => start(i));
  assert.equal(actionTables(starts, { ...D, rows: 2 }), [
    ...ACTION_HEAD,
    startRow(1),
    startRow(2),
    '| … and 3 more (llmgw plan --format json lists every one) | | | | | | |',
  ]);
});

test('exactly d.rows rows: every row shown, no "and 0 more" row', () => {
  const starts = [1, 2, 3].map((i) => start(i));
  assert.equal(actionTables(starts, { ...D, rows: 3 }), [...ACTION_HEAD, startRow(1), startRow(2), startRow(3)]);
});

test('models that cannot be placed past d.rows: the first d.rows, then how many more, with a cell for each of the 3 columns', () => {
  const list = [1, 2, 3, 4].map((i) => ({ model: `m${i}`, missing: i, reason: 'no free GPUs' }));
  assert.equal(unplaceableTable(list, { ...D, rows: 1 }), [
    '| model | missing | why |',
    '|---|---:|---|',
    '| m1 | 1 | no free GPUs |',
    '| … and 3 more (llmgw plan --format json lists every one) | | |',
  ]);
});

test('a cell exactly as long as the limit stays whole; one character longer is cut to the limit, ending in "…"', () => {
  assert.is(clip('abcde', 5), 'abcde');
  assert.is(clip('abcdef', 5), 'abcd…');
  assert.is(clip('abcd', 5), 'abcd');
});

test('a code cell drops backticks, pipes and line breaks, so nothing inside can close it or break the table row', () => {
  assert.is(codeCell('gpu-`a|b\r\nc`'), '`gpu-abc`');
  assert.is(codeCell('gpu-[01-04]'), '`gpu-[01-04]`');
});

test.run();
