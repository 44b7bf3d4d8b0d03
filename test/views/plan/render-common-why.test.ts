// How a row explains itself (actionWhy) and how it is headed (stopVerb), shared by text and markdown.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { renderPlanText } from '../../../src/views/plan/render-text.js';
import { actionWhy, stopVerb } from '../../../src/views/plan/render-common.js';
import type { Plan, StopAction } from '../../../src/types/plan.js';
import { startOf } from '../../fixtures/index.js';
import { UNCHANGED } from './text-actions.js';

const start = startOf('m-2', [{ node: 'gpu-a02', gpus: [0, 1] }], 'spec changed', { port: 8001, weights: 'fabric' });
const stopAfterTwo: StopAction = {
  op: 'stop',
  replica: 'm-0',
  model: 'm',
  placement: [{ node: 'gpu-a01', gpus: [0, 1, 2, 3] }],
  reason: 'spec changed',
  waitFor: ['m-2', 'm-3'],
};
const stopAfterOne: StopAction = { ...stopAfterTwo, replica: 'm-1', waitFor: ['m-2'] };

test('a stop that waits for two replacements says they "are" running, naming both', () => {
  assert.is(actionWhy(stopAfterTwo), 'spec changed; after m-2, m-3 are running');
  assert.is(actionWhy({ ...stopAfterTwo, phase: 'drain' }), 'spec changed; after m-2, m-3 are running; out of every router now, stopped once drained');
  assert.is(actionWhy(stopAfterOne), 'spec changed; after m-2 is running');
});

test('text: a replacement stop waiting on two replicas reads "after m-2, m-3 are running"', () => {
  const plan: Plan = { version: 1, changes: true, blocked: null, actions: [stopAfterTwo], unplaceable: [] };
  assert.is(
    renderPlanText(plan, '', { color: false }),
    ['  - stop  m-0  gpu-a01[0-3]  (spec changed; after m-2, m-3 are running)', '', 'Plan: 0 to start, 1 to stop, 0 cannot be placed.', ...UNCHANGED].join(
      '\n',
    ),
  );
});

test('a start row is headed "start", a draining stop "drain", any other stop "stop"', () => {
  assert.is(stopVerb(start), 'start');
  assert.is(stopVerb({ ...start, replica: 'm-9' }), 'start');
  assert.is(stopVerb({ ...stopAfterOne, phase: 'drain' }), 'drain');
  assert.is(stopVerb({ ...stopAfterOne, phase: 'stop' }), 'stop');
  assert.is(stopVerb(stopAfterOne), 'stop');
});

test.run();
