import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { main } from '../../src/cli/main.js';
import { ROOT } from '../helpers/golden.js';
import { captureIo } from '../helpers/io.js';
import { planRepo as fresh, removePlanRepos, runPlan as plan } from './plan-repo.js';

const models = (replicas: number) => `apiVersion: llmgw/v1
kind: Models
models:
  - name: m
    weights: org/m
    engine: vllm
    gpus: 4
    replicas: ${replicas}
`;

test('plan exits 0 with changes, 2 with --detailed-exitcode, 0 with --detailed-exitcode and no changes', async () => {
  const dir = fresh(models(2));
  const r = await plan(dir, []);
  assert.is(r.code, 0);
  assert.match(r.out, /^  \+ start  m-0  n1\[0-3\]  port 8000  weights: none  \(2 of 2 replicas missing\)$/m);
  assert.match(r.out, /^Plan: 2 to start, 0 to stop, 0 cannot be placed\.$/m);
  assert.match(r.out, /^--- STATUS\.md \(observed\)\n\+\+\+ STATUS\.md \(planned\)$/m);
  assert.is((await plan(dir, ['--detailed-exitcode'])).code, 2);
  const none = fresh(models(0));
  const n = await plan(none, ['--detailed-exitcode']);
  assert.is(n.code, 0);
  assert.match(n.out, /^No changes\. The fleet matches models\.yaml\.$/m);
});

test('plan --format json prints the contract plan', async () => {
  const r = await plan(fresh(models(1)), ['--format', 'json']);
  assert.is(r.code, 0);
  const json = JSON.parse(r.out);
  assert.equal(Object.keys(json), ['version', 'warnings', 'notice', 'base', 'changes', 'blocked', 'actions', 'unplaceable', 'fit', 'survive', 'after']);
  assert.equal([json.warnings, json.notice, json.base, json.actions[0].cause], [[], null, null, 'change']);
  assert.is(json.after.models[0].starting, 1, 'after: the status JSON of the fleet as the tick leaves it');
  assert.equal(json.actions[0].placement, [{ node: 'n1', gpus: [0, 1, 2, 3] }]);
});

test('plan --format markdown prints a PR comment with the diff folded', async () => {
  const r = await plan(fresh(models(1)), ['--format', 'markdown']);
  assert.is(r.code, 0);
  // A model of unknown size is warned about first (docs/placement.md#will-it-fit).
  assert.match(r.out, /^### llmgw plan\n\n(?:> \*\*Warning:\*\* .*\n\n)*\*\*Plan: 1 to start, 0 to stop, 0 cannot be placed\.\*\*/);
  assert.match(r.out, /<details>\n<summary>STATUS\.md diff/);
});

test('an invalid config has no plan: exit 1 with the validation errors, even with --detailed-exitcode', async () => {
  const r = await plan(fresh(models(-1)), ['--detailed-exitcode']);
  assert.is(r.code, 1);
  assert.is(r.out, '');
  assert.match(r.err, /^models\.yaml:\d+:\d+: models\[0\]\.replicas: /m);
});

test('a bad --format is a usage error, exit 1', async () => {
  const r = await plan(fresh(models(1)), ['--format', 'yaml']);
  assert.is(r.code, 1);
  assert.match(r.err, /--format must be one of text, json, markdown/);
});

test('colour only on a terminal and never with NO_COLOR', async () => {
  const dir = fresh(models(1));
  assert.not.match((await plan(dir, [])).out, /\x1b\[/);
  assert.match((await plan(dir, [], { tty: true })).out, /\x1b\[32m/);
  assert.not.match((await plan(dir, [], { tty: true, env: { NO_COLOR: '1' } })).out, /\x1b\[/);
});

async function example(name: string, format: string) {
  const c = captureIo({ cwd: ROOT });
  const code = await main(
    ['plan', '--repo', `examples/${name}`, '--observed', `examples/${name}/.llmgw/observed.json`, '--now', '2026-11-29T08:00:00Z', '--format', format],
    c.io,
  );
  return { code, out: c.out() };
}

test('the demo example plans something sensible: starts land on reachable nodes and the diff shows them', async () => {
  const r = await example('demo', 'json');
  assert.is(r.code, 0);
  const plan = JSON.parse(r.out);
  assert.is(plan.blocked, null);
  for (const a of plan.actions) assert.ok(a.placement.length > 0, a.replica);
  const text = await example('demo', 'text');
  assert.match(text.out, /^Plan: \d+ to start, \d+ to stop, \d+ cannot be placed\.$/m);
});

test('markdown for the large example stays under 60,000 characters', async () => {
  const r = await example('large', 'markdown');
  assert.is(r.code, 0);
  assert.ok(r.out.length < 60_000, `${r.out.length} chars`);
  assert.match(r.out, /^### llmgw plan\n\n\*\*Plan: /);
});

test.after(removePlanRepos);

test.run();
