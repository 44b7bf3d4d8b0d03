// docs/commands.md plan JSON: `rollouts` is present while a rollout is under way or failed,
// as [{model, spec, stage, text}] between `unplaceable` and `after`; absent otherwise.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { planJson, renderPlanJson } from '../../../src/views/plan/render-json.js';
import type { Plan } from '../../../src/types/plan.js';

const base: Plan = { version: 1, changes: true, blocked: null, actions: [], unplaceable: [] };

const withRollouts: Plan = {
  ...base,
  rollouts: [
    { model: 'a', spec: '5f2c9a1e', stage: 'canary', text: 'canary 1 of 4 for spec 5f2c9a1e', next: { spec: '5f2c9a1e', stage: 'canary', canaries: ['a-4'] } },
    {
      model: 'b',
      spec: '0123abcd',
      stage: 'failed',
      text: 'rollout failed for spec 0123abcd: canary b-3 failed',
      next: { spec: '0123abcd', stage: 'failed', reason: 'canary b-3 failed', failedAt: '2026-01-01T00:00:00Z' },
    },
  ],
};

test('json: a plan with rollouts lists each as {model, spec, stage, text}, after unplaceable and before after, without what state.json keeps', () => {
  assert.is(
    JSON.stringify(JSON.parse(renderPlanJson(withRollouts))),
    '{"version":1,"warnings":[],"notice":null,"base":null,"changes":true,"blocked":null,"actions":[],"unplaceable":[],' +
      '"rollouts":[{"model":"a","spec":"5f2c9a1e","stage":"canary","text":"canary 1 of 4 for spec 5f2c9a1e"},' +
      '{"model":"b","spec":"0123abcd","stage":"failed","text":"rollout failed for spec 0123abcd: canary b-3 failed"}],"after":null}',
  );
  assert.equal(planJson(withRollouts).rollouts, [
    { model: 'a', spec: '5f2c9a1e', stage: 'canary', text: 'canary 1 of 4 for spec 5f2c9a1e' },
    { model: 'b', spec: '0123abcd', stage: 'failed', text: 'rollout failed for spec 0123abcd: canary b-3 failed' },
  ]);
});

test('json: a plan without rollouts, or with an empty list, has no rollouts key at all', () => {
  const none = '{"version":1,"warnings":[],"notice":null,"base":null,"changes":true,"blocked":null,"actions":[],"unplaceable":[],"after":null}';
  assert.is(JSON.stringify(JSON.parse(renderPlanJson(base))), none);
  assert.is(JSON.stringify(JSON.parse(renderPlanJson({ ...base, rollouts: [] }))), none);
  assert.equal(Object.keys(planJson({ ...base, rollouts: [] })), [
    'version',
    'warnings',
    'notice',
    'base',
    'changes',
    'blocked',
    'actions',
    'unplaceable',
    'after',
  ]);
});

test.run();
