// What `llmgw reconcile` and `run` print after a tick (docs/commands.md#llmgw-reconcile):
// the plan's table — the one the demo and `llmgw plan` print — then the one summary line;
// a tick with nothing to do prints the line alone.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { emptyOutcome } from '../../src/apply/outcome.js';
import { planTable, printTickResult, tickTable } from '../../src/tick/report.js';
import type { TickResult } from '../../src/tick/result.js';
import type { Plan } from '../../src/types/plan.js';
import { renderPlanText } from '../../src/views/plan/render-text.js';
import { tickResult } from '../fixtures/tick-result.js';

const PLAN: Plan = {
  version: 1,
  changes: true,
  blocked: null,
  actions: [
    {
      op: 'start',
      replica: 'm-0',
      model: 'm',
      port: 8001,
      placement: [{ node: 'gpu-a01', gpus: [0, 1] }],
      weights: 'fabric',
      reason: '1 of 1 replica missing',
    },
  ],
  unplaceable: [{ model: 'ghost', missing: 1, reason: 'no H200 in any fabric' }],
};

function result(plan: Plan): TickResult {
  const outcome = { ...emptyOutcome(), started: plan.actions.length };
  return tickResult({ verdict: { kind: 'applied', forced: false, outcome }, plan, outcome });
}

function printed(r: TickResult): string {
  let out = '';
  printTickResult(r, { stdout: { write: (t: string) => (out += t) }, stderr: { write: () => undefined } });
  return out;
}

test('a tick that acted prints where each replica went (node, GPUs, port, weights), what cannot be placed, then its summary line', () => {
  assert.equal(printed(result(PLAN)).split('\n'), [
    '  + start  m-0  gpu-a01[0-1]  port 8001  weights: fabric  (1 of 1 replica missing)',
    '  ! cannot place  ghost (1 replica): no H200 in any fabric',
    '',
    'Plan: 1 to start, 0 to stop, 1 cannot be placed.',
    '1 action(s) planned; started 1, stopped 0, waiting 0, failed 0; no commit (STATUS.md and state unchanged)',
    '',
  ]);
});

test('the table is the plan text’s own head, not a copy: the same lines `llmgw plan` prints above its diff', () => {
  assert.ok(renderPlanText(PLAN, '', { color: false }).startsWith(planTable(PLAN).join('\n') + '\n'));
});

test('a steady tick prints no table, only its line', () => {
  const steady = { ...PLAN, changes: false, actions: [] };
  assert.equal(tickTable(result(steady)), []);
  assert.is(printed(result(steady)), '0 action(s) planned; started 0, stopped 0, waiting 0, failed 0; no commit (STATUS.md and state unchanged)\n');
});

test.run();
