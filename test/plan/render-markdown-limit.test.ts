// The PR comment stays under MAX_CHARS whatever it is given
// (docs/commands.md, llmgw plan --format markdown): also when the warnings
// alone, the rollouts or a notice would overflow it.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MAX_CHARS, renderPlanMarkdown } from '../../src/plan/render-markdown.js';
import type { Plan, RolloutPlan } from '../../src/types/plan.js';

const empty: Plan = { version: 1, changes: false, blocked: null, actions: [], unplaceable: [] };
const warningLines = (md: string) => md.split('\n').filter((l) => l.startsWith('> **Warning:** '));

test('40 warnings of 2,000 characters: the comment keeps the first that fit, says how many more, and stays under the limit', () => {
  const warnings = Array.from({ length: 40 }, (_, i) => `${String(i).padStart(2, '0')} ${'w'.repeat(1_996)}.`);
  const md = renderPlanMarkdown(empty, '', { warnings });
  assert.ok(md.length <= MAX_CHARS, `${md.length} chars`);
  const shown = warningLines(md);
  const more = shown.pop()!;
  assert.is(more, `> **Warning:** … and ${40 - shown.length} more warnings: llmgw plan prints every one.`);
  assert.equal(shown.map((l) => l.slice(15, 17)), Array.from({ length: shown.length }, (_, i) => String(i).padStart(2, '0')), 'the first ones, in order');
  assert.ok(shown.length >= 30, `${shown.length} shown: as many as fit`);
  assert.ok(md.includes('**No changes.'), 'the summary is still there');
});

test('warnings that fit are all shown, with no "more warnings" line', () => {
  const warnings = Array.from({ length: 20 }, (_, i) => `warning ${i} ${'w'.repeat(1_900)}.`);
  const md = renderPlanMarkdown(empty, '', { warnings });
  assert.is(warningLines(md).length, 20);
  assert.not.match(md, /more warning/);
});

test('1,000 rollouts: as many lines as fit, then how many more, under the limit', () => {
  const rollouts: RolloutPlan[] = Array.from({ length: 1_000 }, (_, i) => ({ model: `model-${i}`, spec: 'abc123', stage: 'rolling', text: `rolling to spec abc123: 1 of 4 on the new spec ${'x'.repeat(100)}`, next: { spec: 'abc123', stage: 'rolling' } }));
  const md = renderPlanMarkdown({ ...empty, rollouts }, '');
  assert.ok(md.length <= MAX_CHARS, `${md.length} chars`);
  const lines = md.split('\n').filter((l) => l.startsWith('- '));
  const more = lines.pop()!;
  assert.is(more, `- … and ${1_000 - lines.length} more (llmgw plan --format json lists every one)`);
  assert.is(lines[0], `- model-0: rolling to spec abc123: 1 of 4 on the new spec ${'x'.repeat(72)}…`, 'each text cut to 120 characters');
});

test('a notice of 100,000 characters is cut to 20,000, under the limit', () => {
  const md = renderPlanMarkdown(empty, '', { notice: 'n'.repeat(100_000) });
  assert.is(md, `### llmgw plan\n\n${'n'.repeat(19_999)}…\n`);
});

test.run();
