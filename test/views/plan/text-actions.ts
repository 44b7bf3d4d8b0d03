// The actions the plain-text renderer's tests (views/plan/render-text-*) lay
// out: one start with every column, and one stop of an old model; and how a
// plan's text ends when STATUS.md would not change.

import type { StartAction, StopAction } from '../../../src/types/plan.js';

export const start: StartAction = {
  op: 'start',
  replica: 'm-1',
  model: 'm',
  port: 8001,
  placement: [{ node: 'a1', gpus: [0, 1, 2, 3] }],
  weights: 'node',
  reason: '1 of 2 replicas missing',
};

export const stop: StopAction = {
  op: 'stop',
  replica: 'old-0',
  model: 'old',
  placement: [{ node: 'b1', gpus: [0, 1] }],
  reason: 'not in models.yaml',
  waitFor: [],
};

/** The last lines of a plan's text when its STATUS.md diff is empty. */
export const UNCHANGED = ['', 'STATUS.md would not change.', ''];
