import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { attribute } from '../../src/plan/cause.js';
import type { Plan, StartAction, StopAction } from '../../src/types/plan.js';

const start = (replica: string, node = 'n1'): StartAction => ({
  op: 'start',
  replica,
  model: replica.replace(/-\d+$/, ''),
  port: 8000,
  placement: [{ node, gpus: [0] }],
  weights: 'none',
  reason: 'missing',
});
const stop = (replica: string, reason = 'failed'): StopAction => ({
  op: 'stop',
  replica,
  model: replica.replace(/-\d+$/, ''),
  placement: [{ node: 'n1', gpus: [0] }],
  reason,
  waitFor: [],
});
const plan = (actions: Plan['actions']): Plan => ({ version: 1, changes: actions.length > 0, blocked: null, actions, unplaceable: [] });

test('an action REF plans too (same op and replica) is pending, wherever it lands and whatever the reason; the rest is the change', () => {
  const branch = plan([start('a-2', 'n2'), start('a-3'), stop('b-0', 'not in models.yaml'), stop('c-1')]);
  const base = plan([start('a-2', 'n1'), stop('b-0', 'failed'), start('c-1')]);
  assert.equal(
    attribute(branch, base).actions.map((a) => `${a.op} ${a.replica} ${a.cause}`),
    ['start a-2 pending', 'start a-3 change', 'stop b-0 pending', 'stop c-1 change'],
  );
});

test('without a base plan every action is the change; a start whose model gets a new spec is the change even where REF starts that id', () => {
  assert.ok(attribute(plan([start('a-0'), stop('b-0')]), null).actions.every((a) => a.cause === 'change'));
  const r = attribute(plan([start('a-0'), stop('a-1')]), plan([start('a-0'), stop('a-1')]), new Set(['a']));
  assert.equal(
    r.actions.map((a) => a.cause),
    ['change', 'pending'],
  );
});

test('the plan handed in is not changed', () => {
  const p = plan([start('a-0')]);
  attribute(p, p);
  assert.is(p.actions[0]!.cause, undefined);
});

test.run();
