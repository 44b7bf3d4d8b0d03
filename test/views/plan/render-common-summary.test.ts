// The summary line every plan format ends its list with (docs/commands.md llmgw plan):
// "No changes." only when nothing starts, nothing stops and nothing is left unplaced.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { renderPlanText } from '../../../src/views/plan/render-text.js';
import { summaryLine } from '../../../src/views/plan/render-common.js';
import type { Plan } from '../../../src/types/plan.js';
import { UNCHANGED } from './text-actions.js';

const stopOnly: Plan = {
  version: 1,
  changes: true,
  blocked: null,
  actions: [{ op: 'stop', replica: 'old-0', model: 'old', placement: [{ node: 'gpu-a01', gpus: [0, 1] }], reason: 'not in models.yaml', waitFor: [] }],
  unplaceable: [],
};

const unplaceableOnly: Plan = {
  version: 1,
  changes: false,
  blocked: null,
  actions: [],
  unplaceable: [
    { model: 'big', missing: 2, reason: 'needs 16 GPUs on one node; the largest node has 8' },
    { model: 'huge', missing: 1, reason: 'needs 2 whole H200 nodes in one fabric; free whole H200 nodes: ib-a 1' },
  ],
};

test('a plan that only stops a replica is not "No changes": it counts the stop', () => {
  assert.is(summaryLine(stopOnly), 'Plan: 0 to start, 1 to stop, 0 cannot be placed.');
  assert.is(
    renderPlanText(stopOnly, '', { color: false }),
    ['  - stop  old-0  gpu-a01[0-1]  (not in models.yaml)', '', 'Plan: 0 to start, 1 to stop, 0 cannot be placed.', ...UNCHANGED].join('\n'),
  );
});

test('a plan whose only news is replicas that cannot be placed is not "No changes": it counts every missing replica', () => {
  assert.is(summaryLine(unplaceableOnly), 'Plan: 0 to start, 0 to stop, 3 cannot be placed.');
  assert.is(
    renderPlanText(unplaceableOnly, '', { color: false }),
    [
      '  ! cannot place  big (2 replicas): needs 16 GPUs on one node; the largest node has 8',
      '  ! cannot place  huge (1 replica): needs 2 whole H200 nodes in one fabric; free whole H200 nodes: ib-a 1',
      '',
      'Plan: 0 to start, 0 to stop, 3 cannot be placed.',
      ...UNCHANGED,
    ].join('\n'),
  );
});

test('only a plan with no start, no stop and nothing unplaced says the fleet matches models.yaml', () => {
  assert.is(summaryLine({ version: 1, changes: false, blocked: null, actions: [], unplaceable: [] }), 'No changes. The fleet matches models.yaml.');
  assert.is(
    summaryLine({ version: 1, changes: false, blocked: null, actions: [], unplaceable: [{ model: 'm', missing: 0, reason: 'x' }] }),
    'No changes. The fleet matches models.yaml.',
  );
});

test.run();
