// The markdown plan's sections, each as a whole comment (docs/commands.md plan,
// --format markdown): the title, warnings, the summary, the cause line and the
// two action groups with --base, blocked, rollouts, the argv of new specs, the
// notice in place of a plan, the legend under a plan that starts anything,
// what stays in "Needs attention" after merge, and the STATUS.md diff folded away.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { renderPlanMarkdown } from '../../../src/views/plan/render-markdown.js';
import type { Plan, RolloutPlan, StartAction, StopAction } from '../../../src/types/plan.js';
import { blankReport } from '../../status/blank-report.js';

const start = (replica: string, model: string, cause?: 'change' | 'pending'): StartAction => ({
  op: 'start',
  replica,
  model,
  port: 8001,
  placement: [{ node: 'gpu-a01', gpus: [0, 1] }],
  weights: 'node',
  reason: '1 of 1 replica missing',
  ...(cause ? { cause } : {}),
});
const stop = (replica: string, model: string, cause?: 'change' | 'pending'): StopAction => ({
  op: 'stop',
  replica,
  model,
  placement: [{ node: 'gpu-b02', gpus: [3] }],
  reason: 'not in models.yaml',
  waitFor: [],
  ...(cause ? { cause } : {}),
});
const plan = (over: Partial<Plan> = {}): Plan => ({ version: 1, changes: true, blocked: null, actions: [], unplaceable: [], ...over });

const NO_CHANGES = '**No changes. The fleet matches models.yaml.**';
const NO_DIFF = '_STATUS.md would not change._';
/** The two lines under the tables of a plan that starts anything: what `where` and `weights` say. */
const LEGEND = [
  '<sub>`gpu-a02[0-3]` = node gpu-a02, GPU indices 0 to 3 (a replica on several nodes lists each, comma-separated).</sub><br>',
  '<sub>weights: `node` = the chosen node holds them; `fabric` = another node of its fabric does; `none` = no node of its fabric does.</sub>',
];

test('an empty plan without --base: title, the summary, then "STATUS.md would not change", and no empty table', () => {
  assert.is(renderPlanMarkdown(plan({ changes: false }), ''), ['### llmgw plan', '', NO_CHANGES, '', NO_DIFF, ''].join('\n'));
});

test('each warning is its own quoted sentence above the summary, and a blocked plan quotes its rule below it', () => {
  const md = renderPlanMarkdown(plan({ blocked: 'only 3 of 8 nodes answered (38%)' }), '', {
    warnings: ['this branch edits STATUS.md, which llmgw writes', 'origin/main has an invalid models.yaml.'],
  });
  assert.is(
    md,
    [
      '### llmgw plan',
      '',
      '> **Warning:** this branch edits STATUS.md, which llmgw writes.',
      '',
      '> **Warning:** origin/main has an invalid models.yaml.',
      '',
      NO_CHANGES,
      '',
      '> **Blocked:** only 3 of 8 nodes answered \\(38%\\).',
      '',
      NO_DIFF,
      '',
    ].join('\n'),
  );
});

test('with --base and no action at all: no cause line, "This change" says it starts and stops nothing, no pending section', () => {
  assert.is(
    renderPlanMarkdown(plan({ changes: false }), '', { base: 'origin/main' }),
    ['### llmgw plan', '', NO_CHANGES, '', '#### This change', '', '_It starts and stops nothing by itself._', '', NO_DIFF, ''].join('\n'),
  );
});

test('with --base and only pending actions: the cause line, "This change" starts and stops nothing, the pending actions apart', () => {
  assert.is(
    renderPlanMarkdown(plan({ actions: [stop('old-0', 'old', 'pending')] }), '', { base: 'origin/main' }),
    [
      '### llmgw plan',
      '',
      '**Plan: 0 to start, 1 to stop, 0 cannot be placed.**',
      '0 caused by this change, 1 already pending on origin/main.',
      '',
      '#### This change',
      '',
      '_It starts and stops nothing by itself._',
      '',
      '#### Already pending on origin/main',
      '',
      '_The reconciler does these whether or not this merges: drift repair, failed restarts, lost nodes._',
      '',
      '| | replica | model | where | port | weights | why |',
      '|---|---|---|---|---|---|---|',
      '| − stop | old-0 | old | `gpu-b02[3]` |  |  | not in models.yaml |',
      '',
      NO_DIFF,
      '',
    ].join('\n'),
  );
});

test('with --base and only this change\'s actions: the cause line and "This change", no "Already pending" section', () => {
  assert.is(
    renderPlanMarkdown(plan({ actions: [start('m-0', 'm', 'change')] }), '', { base: 'origin/main' }),
    [
      '### llmgw plan',
      '',
      '**Plan: 1 to start, 0 to stop, 0 cannot be placed.**',
      '1 caused by this change, 0 already pending on origin/main.',
      '',
      '#### This change',
      '',
      '| | replica | model | where | port | weights | why |',
      '|---|---|---|---|---|---|---|',
      '| + start | m-0 | m | `gpu-a01[0-1]` | 8001 | node | 1 of 1 replica missing |',
      '',
      ...LEGEND,
      '',
      NO_DIFF,
      '',
    ].join('\n'),
  );
});

test('rollouts: one bullet per model, a failed one marked **failed**, its text up to 2,000 characters uncut', () => {
  const long = `rollout failed for spec 5f2c9a1e: ${'x'.repeat(1_500)}`;
  const rollout = (model: string, stage: RolloutPlan['stage'], text: string): RolloutPlan => ({
    model,
    spec: '5f2c9a1e',
    stage,
    text,
    next: { spec: '5f2c9a1e', stage: stage === 'hold' ? 'canary' : stage },
  });
  const md = renderPlanMarkdown(
    plan({ changes: false, rollouts: [rollout('llama', 'canary', 'canary 1 of 4 for spec 5f2c9a1e'), rollout('qwen', 'failed', long)] }),
    '',
  );
  assert.is(
    md,
    ['### llmgw plan', '', NO_CHANGES, '', '**Rollouts**', '', '- llama: canary 1 of 4 for spec 5f2c9a1e', `- **failed** qwen: ${long}`, '', NO_DIFF, ''].join(
      '\n',
    ),
  );
});

test('rollouts: an empty list shows no Rollouts heading', () => {
  assert.is(renderPlanMarkdown(plan({ changes: false, rollouts: [] }), ''), ['### llmgw plan', '', NO_CHANGES, '', NO_DIFF, ''].join('\n'));
});

test('the argv of a new spec: a newline inside an argument reads as a space, so the command stays on one line', () => {
  const md = renderPlanMarkdown(plan({ changes: false }), '', {
    specs: [{ model: 'm', spec: 'abcd1234', argv: ['vllm', 'serve', '--chat-template', 'a\nb\r\nc'] }],
  });
  assert.is(
    md,
    [
      '### llmgw plan',
      '',
      NO_CHANGES,
      '',
      '<details>',
      '<summary>argv of 1 new or changed spec (once per model)</summary>',
      '',
      '**m** (spec `abcd1234`)',
      '',
      '```sh',
      "vllm serve --chat-template 'a b  c'",
      '```',
      '',
      '</details>',
      '',
      NO_DIFF,
      '',
    ].join('\n'),
  );
});

test('a notice replaces the plan and the diff: the comment is the title and the notice, its `code spans` kept', () => {
  const md = renderPlanMarkdown(plan(), '--- STATUS.md\n+++ STATUS.md (planned)\n+x\n', {
    notice: 'No observed state for this repo: run `llmgw observe` on a_b first.',
  });
  assert.is(md, ['### llmgw plan', '', 'No observed state for this repo: run `llmgw observe` on a\\_b first.', ''].join('\n'));
});

test('a STATUS.md diff is folded in <details> with its counts of added and removed lines', () => {
  const diff = '--- STATUS.md\n+++ STATUS.md (planned)\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n+d\n';
  assert.is(
    renderPlanMarkdown(plan({ changes: false }), diff),
    [
      '### llmgw plan',
      '',
      NO_CHANGES,
      '',
      '<details>',
      '<summary>STATUS.md diff (+2 −1)</summary>',
      '',
      '```diff',
      '--- STATUS.md',
      '+++ STATUS.md (planned)',
      '@@ -1,2 +1,2 @@',
      ' a',
      '-b',
      '+c',
      '+d',
      '```',
      '',
      '</details>',
      '',
    ].join('\n'),
  );
});

test('a plan that starts nothing has no legend: its rows show no weights, and a stop reads without one', () => {
  const md = renderPlanMarkdown(plan({ actions: [stop('old-0', 'old')] }), '');
  assert.not.ok(md.includes('weights: `node`'), md);
});

test('an unplaceable model is said to stay in "Needs attention" after merge, one line per item of the list as the plan leaves it', () => {
  const ghost = { kind: 'unplaceable', text: '1 model cannot be placed', subjects: [{ name: 'ghost', detail: '1 missing', model: 'ghost' }] };
  const lost = {
    kind: 'nodes-lost',
    text: '1 node lost (its replicas are placed elsewhere)',
    subjects: [{ name: 'gpu-b04', detail: 'network', node: 'gpu-b04' }],
  };
  const after = blankReport({ attention: [lost, ghost] });
  const unplaceable = [{ model: 'ghost', missing: 1, reason: 'no H200 in any fabric' }];
  const md = renderPlanMarkdown(plan({ actions: [start('m-0', 'm')], unplaceable }), '', { after });
  const lines = md.split('\n');
  const at = lines.indexOf('**Still in "Needs attention" after merge**');
  assert.ok(at > lines.indexOf('**Cannot be placed**'), md);
  assert.equal(lines.slice(at, at + 5), [
    '**Still in "Needs attention" after merge**',
    '',
    '- 1 node lost (its replicas are placed elsewhere): gpu-b04 (network)',
    '- 1 model cannot be placed: ghost (1 missing)',
    '',
  ]);
  assert.not.ok(renderPlanMarkdown(plan({ actions: [start('m-0', 'm')] }), '', { after: blankReport() }).includes('after merge'));
});

test('a "Needs attention" line after merge names at most 10 subjects, then how many more; a subject without detail is its name; an item without subjects its headline', () => {
  const subjects = Array.from({ length: 12 }, (_, i) => ({ name: `gpu-a${String(i).padStart(2, '0')}`, detail: null, node: `gpu-a${i}` }));
  const down = { kind: 'nodes-unreachable', text: '12 nodes unreachable', subjects };
  const blocked = { kind: 'blocked', text: 'the plan is blocked', subjects: [] };
  const md = renderPlanMarkdown(plan({ actions: [start('m-0', 'm')] }), '', { after: blankReport({ attention: [down, blocked] }) });
  const lines = md.split('\n');
  const at = lines.indexOf('**Still in "Needs attention" after merge**');
  assert.equal(lines.slice(at + 2, at + 5), [
    '- 12 nodes unreachable: gpu-a00, gpu-a01, gpu-a02, gpu-a03, gpu-a04, gpu-a05, gpu-a06, gpu-a07, gpu-a08, gpu-a09, and 2 more',
    '- the plan is blocked',
    '',
  ]);
  const ten = renderPlanMarkdown(plan({ actions: [start('m-0', 'm')] }), '', {
    after: blankReport({ attention: [{ ...down, text: '10 nodes unreachable', subjects: subjects.slice(0, 10) }] }),
  });
  assert.ok(ten.includes('- 10 nodes unreachable: gpu-a00, gpu-a01, gpu-a02, gpu-a03, gpu-a04, gpu-a05, gpu-a06, gpu-a07, gpu-a08, gpu-a09\n'), ten);
});

test('the argv of a new spec names the model`s fit beside its spec when the fleet after merge knows it; none without a fit report', () => {
  const specs = [{ model: 'm', spec: 'abcd1234', argv: ['vllm', 'serve'] }];
  const entry = { fits: true, weightsGiBPerGpu: 30, kvGiBPerGpu: 10, maxModelLen: 8192, sequences: 3 };
  const fitted = renderPlanMarkdown(plan({ changes: false }), '', { specs, after: blankReport({ fit: { m: { H100: entry } } }) });
  assert.ok(fitted.split('\n').includes('**m** (spec `abcd1234`); fits H100 \\(3 full-length sequences\\)'), fitted);
  const unknown = renderPlanMarkdown(plan({ changes: false }), '', { specs, after: blankReport() });
  assert.ok(unknown.split('\n').includes('**m** (spec `abcd1234`)'), unknown);
});

test.run();
