// `llmgw plan --check-survive` (docs/placement.md#survive): exit 3 when the fleet
// as the plan leaves it breaks a model's models.yaml `survive:`, before the 2 of
// --detailed-exitcode; the warning heads the plan.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { planRepo, removePlanRepos, runPlan } from './plan-repo.js';

const models = (replicas: number, survive = 'node') =>
  `apiVersion: llmgw/v1\nkind: Models\nmodels:\n  - { name: m, weights: org/m, engine: vllm, gpus: 4, replicas: ${replicas}, survive: ${survive} }\n`;

/** `llmgw plan` of a repo with `modelsYaml`, its GPUs of known memory (what fit reads). */
const plan = (modelsYaml: string, args: string[]) => runPlan(planRepo(modelsYaml, { memoryMiB: 81559 }), args);

const BROKEN = "model 'm' does not survive the loss of node n1: all its 1 replica run there (models.yaml survive: node)";

test('one replica with survive: node exits 3, before the 2 of --detailed-exitcode, and says why at the top', async () => {
  const r = await plan(models(1), ['--check-survive', '--detailed-exitcode']);
  assert.is(r.code, 3);
  assert.ok(r.out.includes(BROKEN), r.out);
});

test('two replicas on two nodes exit 0 (and 2 with --detailed-exitcode, as their starts are changes)', async () => {
  assert.is((await plan(models(2), ['--check-survive'])).code, 0);
  assert.is((await plan(models(2), ['--check-survive', '--detailed-exitcode'])).code, 2);
});

test('without --check-survive a broken survive: is a warning only; survive: none is never one', async () => {
  assert.is((await plan(models(1), [])).code, 0);
  assert.is((await plan(models(1, 'none'), ['--check-survive'])).code, 0);
});

test('plan JSON: survive at the top level, the warning in warnings', async () => {
  const json = JSON.parse((await plan(models(1), ['--format', 'json'])).out);
  assert.equal(json.survive.node, { worst: 'n1', models: { m: { from: 1, to: 0, worst: 'n1', roomToReplace: true } } });
  assert.equal(json.warnings, [BROKEN]);
  assert.equal(json.after.surviveWarnings, [BROKEN]);
});

test('STATUS.md as the plan leaves it has the warning at the top, before the observation line', async () => {
  const out = (await plan(models(1), [])).out;
  assert.match(out, new RegExp(`\\+> \\*\\*Warning:\\*\\* model 'm' does not survive the loss of node n1`));
});

test('markdown: a model of known size says, beside its argv, which classes it fits and how many full-length sequences', async () => {
  const sized = models(2).replace('survive: node }', 'survive: node, weightsBytes: 16060522240 }');
  const out = (await plan(sized, ['--format', 'markdown'])).out;
  assert.ok(out.includes('**m** (spec `'), out);
  assert.match(out, /\*\*m\*\* \(spec `[0-9a-f]+`\); fits H100$/m);
});

test.after(removePlanRepos);

test.run();
