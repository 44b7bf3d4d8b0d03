import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { renderPlanText } from '../../../src/views/plan/render-text.js';
import { renderPlanJson } from '../../../src/views/plan/render-json.js';
import { MAX_CHARS, renderPlanMarkdown } from '../../../src/views/plan/render-markdown.js';
import { indexRanges } from '../../../src/views/plan/render-common.js';
import { statusDiff } from '../../../src/views/plan/status-diff.js';
import type { Plan, StartAction } from '../../../src/types/plan.js';
import { blankReport } from '../../status/blank-report.js';

const plan: Plan = {
  version: 1,
  changes: true,
  blocked: null,
  actions: [
    {
      op: 'stop',
      replica: 'old-model-0',
      model: 'old-model',
      placement: [{ node: 'gpu-b02', gpus: [0, 1, 2, 3, 4, 5, 6, 7] }],
      reason: 'not in models.yaml',
      waitFor: [],
    },
    {
      op: 'start',
      replica: 'llama-3.1-70b-1',
      model: 'llama-3.1-70b',
      port: 8000,
      placement: [{ node: 'gpu-a02', gpus: [0, 1, 2, 3] }],
      weights: 'node',
      reason: '1 of 2 replicas missing',
    },
    { op: 'stop', replica: 'qwen-0', model: 'qwen', placement: [{ node: 'gpu-a01', gpus: [4, 5] }], reason: 'spec changed', waitFor: ['qwen-1'] },
  ],
  unplaceable: [{ model: 'deepseek-v3', missing: 1, reason: 'needs 2 whole H200 nodes in one fabric; free whole H200 nodes: ib-a 1, ib-b 0' }],
};

test('GPU indices print as ranges', () => {
  assert.is(indexRanges([0, 1, 2, 3]), '0-3');
  assert.is(indexRanges([0, 2, 3, 7]), '0,2-3,7');
  assert.is(indexRanges([]), '');
});

test('text: one aligned line per action, starts then stops, cannot-place, summary, then the diff', () => {
  const diff = statusDiff('a\nb\n', 'a\nc\n');
  const text = renderPlanText(plan, diff, { color: false });
  assert.is(
    text,
    [
      '  + start  llama-3.1-70b-1  gpu-a02[0-3]  port 8000  weights: node  (1 of 2 replicas missing)',
      '  - stop   old-model-0      gpu-b02[0-7]                            (not in models.yaml)',
      '  - stop   qwen-0           gpu-a01[4-5]                            (spec changed; after qwen-1 is running)',
      '  ! cannot place  deepseek-v3 (1 replica): needs 2 whole H200 nodes in one fabric; free whole H200 nodes: ib-a 1, ib-b 0',
      '',
      'Plan: 1 to start, 2 to stop, 1 cannot be placed.',
      '',
      '--- STATUS.md (observed)',
      '+++ STATUS.md (planned)',
      '@@ -1,2 +1,2 @@',
      ' a',
      '-b',
      '+c',
      '',
    ].join('\n'),
  );
  assert.not.match(text, /\x1b/);
  assert.match(renderPlanText(plan, diff, { color: true }), /\x1b\[32m  \+ start/);
});

test('text: no actions says the fleet matches, and a blocked plan says why', () => {
  const empty: Plan = { version: 1, changes: false, blocked: null, actions: [], unplaceable: [] };
  assert.is(renderPlanText(empty, '', { color: false }), 'No changes. The fleet matches models.yaml.\n\nSTATUS.md would not change.\n');
  const blocked = renderPlanText({ ...plan, blocked: 'only 3 of 8 nodes answered (38%); safety.minReachableFraction is 50%: observing only' }, '', {
    color: false,
  });
  assert.match(blocked, /\nBlocked: only 3 of 8 nodes answered \(38%\); safety.minReachableFraction is 50%: observing only\.\n/);
});

test('text: control characters from a node never reach the terminal', () => {
  const evil: Plan = {
    ...plan,
    blocked: 'x\x1b[2J',
    actions: [{ ...plan.actions[0]!, replica: 'x\x1b[2Jy\nz' }],
    unplaceable: [{ model: 'm\x1b[31m', missing: 1, reason: 'needs \x1b]8;;http://e\x07x' }],
  };
  const out = renderPlanText(evil, '+\x1b[2J\n', { color: false });
  assert.not.match(out, /[\x1b\x07]/);
  assert.ok(out.includes('x[2Jy z'), 'one line per action');
});

test('json: the contract fields in the contract order, each action with its cause, then after', () => {
  const extra = { ...plan, actions: [{ ...(plan.actions[1] as StartAction), extra: 1 } as StartAction] };
  const json = renderPlanJson(extra);
  assert.is(
    JSON.stringify(JSON.parse(json)),
    '{"version":1,"warnings":[],"notice":null,"base":null,"changes":true,"blocked":null,"actions":[{"op":"start","replica":"llama-3.1-70b-1","model":"llama-3.1-70b","port":8000,"placement":[{"node":"gpu-a02","gpus":[0,1,2,3]}],"weights":"node","reason":"1 of 2 replicas missing","cause":"change"}],"unplaceable":[{"model":"deepseek-v3","missing":1,"reason":"needs 2 whole H200 nodes in one fabric; free whole H200 nodes: ib-a 1, ib-b 0"}],"after":null}',
  );
  const stop = JSON.parse(renderPlanJson({ ...plan, actions: [{ ...plan.actions[0]!, cause: 'pending' }] }, { base: 'origin/main', warnings: ['w'] }));
  assert.equal(Object.keys(stop.actions[0]), ['op', 'replica', 'model', 'placement', 'reason', 'waitFor', 'cause']);
  assert.equal([stop.actions[0].cause, stop.base, stop.warnings], ['pending', 'origin/main', ['w']]);
});

test('markdown: summary first, a table of actions, the diff folded in <details>', () => {
  const md = renderPlanMarkdown(plan, statusDiff('a\nb\n', 'a\nc\n'));
  assert.ok(md.startsWith('### llmgw plan\n\n**Plan: 1 to start, 2 to stop, 1 cannot be placed.**\n'));
  assert.match(md, /\| \+ start \| llama-3.1-70b-1 \| llama-3.1-70b \| `gpu-a02\[0-3\]` \| 8000 \| node \| 1 of 2 replicas missing \|/);
  assert.match(md, /<details>\n<summary>STATUS.md diff \(\+1 −1\)<\/summary>\n\n```diff\n--- STATUS.md \(observed\)/);
  assert.match(md, /\n<\/details>\n$/);
});

test('markdown: node-derived text cannot inject HTML or break the table', () => {
  const evil: Plan = { ...plan, actions: [{ ...plan.actions[0]!, replica: '<img src=x>|**x**' }] };
  const md = renderPlanMarkdown(evil, '');
  assert.not.match(md, /<img/);
  assert.match(md, /&lt;img src=x>\\\|\\\*\\\*x\\\*\\\*/);
});

test('markdown: 2,000 starts of one model are one row per model, and a long diff is cut with "and N more lines"', () => {
  const many: Plan = {
    ...plan,
    actions: Array.from({ length: 2000 }, (_, i) => ({ ...(plan.actions[1] as StartAction), replica: `m-${i}` })),
  };
  const bigDiff = statusDiff('', Array.from({ length: 5000 }, (_, i) => `line ${i} ${'x'.repeat(40)}`).join('\n') + '\n');
  const md = renderPlanMarkdown(many, bigDiff);
  assert.ok(md.length <= MAX_CHARS, `${md.length} chars`);
  assert.match(md, /\| llama-3\.1-70b \| 2000 \| `gpu-a02` \| node 2000 \|/);
  assert.not.match(md, /\| \+ start \|/);
  assert.match(md, /… and \d+ more lines of the diff\./);
});

test('markdown: however many and however long the rows, the comment stays under the limit and says what it left out', () => {
  const long = 'm'.repeat(300);
  const start = plan.actions[1] as StartAction;
  const huge: Plan = {
    ...plan,
    blocked: 'b'.repeat(10_000),
    // Past the limit at every level of detail, capped lists included (a row per model is
    // still over 100 characters), so the rows per table are bisected. Bigger only takes longer.
    actions: Array.from({ length: 600 }, (_, i) => ({ ...start, replica: `${long}${i}-${i}`, model: `${long}${i}`, reason: 'r'.repeat(1_500) })),
    unplaceable: Array.from({ length: 100 }, (_, i) => ({ model: `${long}${i}`, missing: 1, reason: 'ib-x 0, '.repeat(300) })),
  };
  const out = renderPlanMarkdown(huge, statusDiff('', 'x'.repeat(200_000) + '\n'), { warnings: ['w'.repeat(100_000)], base: 'origin/main' });
  assert.ok(out.length <= MAX_CHARS, `${out.length} chars`);
  assert.match(out, /\| … and \d+ more \(llmgw plan --format json lists every one\) \|/);
  assert.ok(out.includes('<details>') && out.includes('</details>'));
  assert.ok(out.startsWith('### llmgw plan\n\n> **Warning:** www'), 'the warning stays at the top');
});

test('json: a stop that drains first says phase drain, after waitFor and before its cause; a plain stop has no phase', () => {
  const drain = { ...plan.actions[2]!, phase: 'drain' as const };
  const json = JSON.parse(renderPlanJson({ ...plan, actions: [plan.actions[0]!, drain] })) as { actions: Record<string, unknown>[] };
  assert.equal(Object.keys(json.actions[1]!), ['op', 'replica', 'model', 'placement', 'reason', 'waitFor', 'phase', 'cause']);
  assert.equal([json.actions[1]!.phase, json.actions[1]!.waitFor], ['drain', ['qwen-1']]);
  assert.not.ok('phase' in json.actions[0]!);
});

test('json: the fleet`s fit and survive are lifted from after to the top level, just before after; absent when after has none', () => {
  const fit = { 'llama-3.1-70b': null };
  const survive = { node: { worst: 'gpu-a01', models: {} }, fabric: { worst: 'ib-a', models: {} } };
  const after = blankReport({ fit, survive });
  const json = JSON.parse(renderPlanJson(plan, { after })) as Record<string, unknown>;
  assert.equal(Object.keys(json).slice(-3), ['fit', 'survive', 'after']);
  assert.equal([json.fit, json.survive], [fit, survive]);
  const bare = JSON.parse(renderPlanJson(plan, { after: blankReport() })) as Record<string, unknown>;
  assert.equal(Object.keys(bare).slice(-2), ['unplaceable', 'after']);
});

test.run();
