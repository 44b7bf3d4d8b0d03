import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { renderPlanTable, renderPlanText } from '../../../src/views/plan/render-text.js';
import type { Plan, StopAction } from '../../../src/types/plan.js';
import { UNCHANGED, start, stop } from './text-actions.js';

const empty: Plan = { version: 1, changes: false, blocked: null, actions: [], unplaceable: [] };
const drain: StopAction = { ...stop, replica: 'q-10', model: 'q', placement: [{ node: 'b2', gpus: [4, 5, 6, 7] }], reason: 'spec changed', phase: 'drain' };
/** stop and drain as listed without port or weights columns. */
const STOP_LINES = [
  '  - stop   old-0  b1[0-1]  (not in models.yaml)',
  '  - drain  q-10   b2[4-7]  (spec changed; out of every router now, stopped once drained)',
];
const plain = (plan: Plan, extra: { base?: string; warnings?: string[]; notice?: string } = {}) => renderPlanText(plan, '', { color: false, ...extra });

test('warnings stand above the plan with one blank line between, and an unchanged fleet under them gets no second blank line', () => {
  assert.is(
    plain(empty, { warnings: ['this branch edits STATUS.md, which llmgw writes'] }),
    'Warning: this branch edits STATUS.md, which llmgw writes.\n\nNo changes. The fleet matches models.yaml.\n\nSTATUS.md would not change.\n',
  );
  assert.is(
    plain({ ...empty, changes: true, actions: [start] }, { warnings: ['w'] }),
    [
      'Warning: w.',
      '',
      '  + start  m-1  a1[0-3]  port 8001  weights: node  (1 of 2 replicas missing)',
      '',
      'Plan: 1 to start, 0 to stop, 0 cannot be placed.',
      ...UNCHANGED,
    ].join('\n'),
  );
});

test('a notice takes the place of the whole plan: the warnings, a blank line, the notice, and nothing after it', () => {
  const plan: Plan = { ...empty, changes: true, actions: [start], unplaceable: [{ model: 'x', missing: 1, reason: 'r' }] };
  const notice = 'this repo was never observed: run llmgw apply once';
  assert.is(plain(plan, { warnings: ['w1', 'w2.'], notice }), `Warning: w1.\nWarning: w2.\n\n${notice}\n`);
  assert.is(plain(plan, { notice }), `${notice}\n`);
});

test('with --base and nothing pending on REF, only "This change:" is listed, never an empty pending group', () => {
  assert.is(
    plain({ ...empty, changes: true, actions: [{ ...start, cause: 'change' }] }, { base: 'origin/main' }),
    [
      'This change:',
      '  + start  m-1  a1[0-3]  port 8001  weights: node  (1 of 2 replicas missing)',
      '',
      'Plan: 1 to start, 0 to stop, 0 cannot be placed.',
      '1 caused by this change, 0 already pending on origin/main.',
      ...UNCHANGED,
    ].join('\n'),
  );
});

test('with --base and only pending actions, "This change:" says "nothing", and stop lines have no empty port and weights columns', () => {
  assert.is(
    plain(
      {
        ...empty,
        changes: true,
        actions: [
          { ...stop, cause: 'pending' },
          { ...drain, cause: 'pending' },
        ],
      },
      { base: 'origin/main' },
    ),
    [
      'This change:',
      '  nothing',
      '',
      'Already pending on origin/main (done whether or not this merges):',
      ...STOP_LINES,
      '',
      'Plan: 0 to start, 2 to stop, 0 cannot be placed.',
      '0 caused by this change, 2 already pending on origin/main.',
      ...UNCHANGED,
    ].join('\n'),
  );
});

test('without --base, a plan of stops only lines up verb, replica and placement with no port or weights columns', () => {
  assert.is(
    plain({ ...empty, changes: true, actions: [stop, drain] }),
    [...STOP_LINES, '', 'Plan: 0 to start, 2 to stop, 0 cannot be placed.', ...UNCHANGED].join('\n'),
  );
});

test('with --base and no action at all, "This change:" says "nothing" and the summary has no cause line', () => {
  assert.is(plain(empty, { base: 'origin/main' }), 'This change:\n  nothing\n\nNo changes. The fleet matches models.yaml.\n\nSTATUS.md would not change.\n');
});

test('a model missing one replica reads "1 replica", one missing more reads "N replicas"', () => {
  const plan: Plan = {
    ...empty,
    unplaceable: [
      { model: 'one', missing: 1, reason: 'needs 8 free H100 GPUs on one node; most free on a node: 4' },
      { model: 'three', missing: 3, reason: 'no node holds its weights' },
    ],
  };
  assert.is(
    plain(plan),
    [
      '  ! cannot place  one (1 replica): needs 8 free H100 GPUs on one node; most free on a node: 4',
      '  ! cannot place  three (3 replicas): no node holds its weights',
      '',
      'Plan: 0 to start, 0 to stop, 4 cannot be placed.',
      ...UNCHANGED,
    ].join('\n'),
  );
});

test('the plan table alone (what reconcile, run and demo print after a tick): the plan`s lines up to its summary, no diff', () => {
  const p: Plan = { version: 1, changes: true, blocked: null, actions: [start], unplaceable: [] };
  const table = renderPlanTable(p, { color: false });
  assert.is(
    table,
    ['  + start  m-1  a1[0-3]  port 8001  weights: node  (1 of 2 replicas missing)', '', 'Plan: 1 to start, 0 to stop, 0 cannot be placed.', ''].join('\n'),
  );
  assert.is(plain(p), table + UNCHANGED.join('\n'));
});

test.run();
