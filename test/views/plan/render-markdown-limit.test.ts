// The PR comment stays under MAX_CHARS whatever it is given
// (docs/commands.md, llmgw plan --format markdown): also when the warnings
// alone, the rollouts or a notice would overflow it.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MAX_CHARS, renderPlanMarkdown } from '../../../src/views/plan/render-markdown.js';
import type { Plan, RolloutPlan } from '../../../src/types/plan.js';
import { blankReport } from '../../status/blank-report.js';

const empty: Plan = { version: 1, changes: false, blocked: null, actions: [], unplaceable: [] };
const warningLines = (md: string) => md.split('\n').filter((l) => l.startsWith('> **Warning:** '));

test('40 warnings of 2,000 characters: the comment keeps the first that fit, says how many more, and stays under the limit', () => {
  const warnings = Array.from({ length: 40 }, (_, i) => `${String(i).padStart(2, '0')} ${'w'.repeat(1_996)}.`);
  const md = renderPlanMarkdown(empty, '', { warnings });
  assert.ok(md.length <= MAX_CHARS, `${md.length} chars`);
  const shown = warningLines(md);
  const more = shown.pop()!;
  assert.is(more, `> **Warning:** … and ${40 - shown.length} more warnings: llmgw plan prints every one.`);
  assert.equal(
    shown.map((l) => l.slice(15, 17)),
    Array.from({ length: shown.length }, (_, i) => String(i).padStart(2, '0')),
    'the first ones, in order',
  );
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
  const rollouts: RolloutPlan[] = Array.from({ length: 1_000 }, (_, i) => ({
    model: `model-${i}`,
    spec: 'abc123',
    stage: 'rolling',
    text: `rolling to spec abc123: 1 of 4 on the new spec ${'x'.repeat(100)}`,
    next: { spec: 'abc123', stage: 'rolling' },
  }));
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

// Exactly at the edge: the body may take 64,400 characters (65,000 less the diff's frame and 200 to spare).
const ROOM = 64_400;
const TAIL = '\n_STATUS.md would not change._\n';
const prose = (n: number) => `${'a'.repeat(n - 1)}.`;
const three: Plan = { ...empty, changes: true, unplaceable: ['a', 'b', 'c'].map((m) => ({ model: `model-${m}`, missing: 1, reason: 'needs 8 GPUs' })) };
const moreLine = (m: number) => `> **Warning:** … and ${m} more warning${m === 1 ? '' : 's'}: llmgw plan prints every one.`;

/** `total` warnings whose first `k` and the "more" line fill the body to exactly ROOM, the rest 2,000 characters each. */
function edgeWarnings(total: number, k: number): string[] {
  // What the body takes besides its warnings, read off a render with all of them too long to fit.
  const probe = Array.from({ length: total }, () => prose(2_000));
  const md = renderPlanMarkdown(three, '', { warnings: probe });
  const shown = warningLines(md).length - 1;
  const rest = md.length - TAIL.length - shown * 2_017 - (moreLine(total - shown).length + 2);
  const budget = ROOM - rest - (moreLine(total - k).length + 2) - k * 17;
  const each = Math.floor(budget / k);
  assert.ok(each <= 2_000 && each > 1_000, `${each}`);
  return Array.from({ length: total }, (_, i) => prose(i >= k ? 2_000 : i === 0 ? budget - each * (k - 1) : each));
}

test('warnings and the "more" line filling the body to exactly its room all stay; one character more and one warning less is shown', () => {
  const warnings = edgeWarnings(40, 33);
  const md = renderPlanMarkdown(three, '', { warnings });
  assert.is(md.length - TAIL.length, ROOM);
  assert.is(warningLines(md).length, 34);
  assert.is(warningLines(md)[33], moreLine(7));
  // The tables keep their counts, no rows: the last resort's 0 rows.
  assert.ok(md.includes('| … and 3 more (llmgw plan --format json lists every one) | | |'), md.slice(-600));
  assert.not.match(md, /model-a/);

  const over = [`a${warnings[0]}`, ...warnings.slice(1)];
  const cut = renderPlanMarkdown(three, '', { warnings: over });
  assert.is(warningLines(cut).length, 33);
  assert.is(warningLines(cut)[32], moreLine(8));
});

test('one warning left out says "1 more warning"', () => {
  const md = renderPlanMarkdown(three, '', { warnings: edgeWarnings(34, 33) });
  assert.is(warningLines(md).length, 34);
  assert.is(warningLines(md)[33], '> **Warning:** … and 1 more warning: llmgw plan prints every one.');
});

test('1,000 "Needs attention" items after merge beside 1,000 rollouts: as many lines as fit, then how many more, under the limit', () => {
  const rollouts: RolloutPlan[] = Array.from({ length: 1_000 }, (_, i) => ({
    model: `model-${i}`,
    spec: 'abc123',
    stage: 'rolling',
    text: 'rolling to spec abc123',
    next: { spec: 'abc123', stage: 'rolling' },
  }));
  const attention = Array.from({ length: 1_000 }, (_, i) => ({
    kind: 'unplaceable',
    text: `model ${i} cannot be placed`,
    subjects: [{ name: `model-${i}`, detail: 'd'.repeat(100), model: `model-${i}` }],
  }));
  const md = renderPlanMarkdown({ ...empty, rollouts }, '', { after: blankReport({ attention }) });
  assert.ok(md.length <= MAX_CHARS, `${md.length} chars`);
  const lines = md.split('\n');
  const items = lines.filter((l) => /^- model \d+ cannot be placed/.test(l));
  assert.ok(items.length > 50, `${items.length} shown`);
  assert.is(items[0], `- model 0 cannot be placed: model-0 (${'d'.repeat(59)}…)`, 'each detail cut to 60 characters');
  assert.ok(lines.includes(`- … and ${1_000 - items.length} more (llmgw plan --format json: after.attention)`), md.slice(0, 400));
});

test.run();
