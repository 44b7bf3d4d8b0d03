// How the markdown plan fits one PR comment (docs/commands.md plan, --format
// markdown; src/views/plan/render-markdown.ts): the body gets 65,000 − 400 (the
// diff's frame) − 200 characters; it tries the detail levels in order — stops
// one row each with cells up to 1,000 then 200 characters, stops grouped per
// model, then every start grouped with cells up to 80 — and only past all that
// caps each table at the most rows that still fit, saying how many are left
// out. The STATUS.md diff gets what is left of the 65,000, less its frame.
// Each test builds the comment it expects line by line and pads it with
// warnings (which every level shows whole) to land exactly on a boundary.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MAX_CHARS, renderPlanMarkdown } from '../../../src/views/plan/render-markdown.js';
import type { Plan, StopAction, Unplaceable } from '../../../src/types/plan.js';

/** What the body may take: MAX_CHARS less the diff's frame (400) less 200 to spare. */
const ROOM = 64_400;
const NO_DIFF = '_STATUS.md would not change._';
const TITLE = ['### llmgw plan', ''];
/** The head of the table of stops grouped per model. */
const STOPS_PER_MODEL = ['| − stop, per model | replicas | ids | nodes | why |', '|---|---:|---|---|---|'];
/** The heading and the head of the table of models that cannot be placed. */
const CANNOT_PLACE = ['**Cannot be placed**', '', '| model | missing | why |', '|---|---:|---|'];

const plan = (over: Partial<Plan> = {}): Plan => ({ version: 1, changes: true, blocked: null, actions: [], unplaceable: [], ...over });
const stop = (i: number, reason: string): StopAction => ({
  op: 'stop',
  replica: `old-${i}`,
  model: 'old',
  placement: [{ node: `gpu-${String(i).padStart(4, '0')}`, gpus: [0] }],
  reason,
  waitFor: [],
});
/** old-0 and old-1, not in models.yaml, and the one row they are grouped per model. */
const TWO_OLD = [stop(0, 'not in models.yaml'), stop(1, 'not in models.yaml')];
const TWO_OLD_GROUPED = [...STOPS_PER_MODEL, '| old | 2 | `old-[0-1]` | `gpu-[0000-0001]` | not in models.yaml |'];
const unplaceable = (n: number, reason: string): Unplaceable[] => Array.from({ length: n }, (_, i) => ({ model: `model-${i}`, missing: 1, reason }));
/** Plain text of `n` characters ending in a full stop: markdown escapes none of it. */
const prose = (n: number) => `${'a'.repeat(n - 1)}.`;

/** Characters the body's lines take in the comment (each with its newline). */
const size = (lines: string[]) => lines.reduce((n, l) => n + l.length + 1, 0);

/** Warnings whose lines (`> **Warning:** …` and a blank line) take exactly `extra` characters. */
function warningsTaking(extra: number): string[] {
  const n = Math.ceil(extra / 1_500);
  const each = Math.floor(extra / n);
  return Array.from({ length: n }, (_, i) => prose((i === 0 ? each + (extra - each * n) : each) - 17));
}

/** `body` with the warnings after its title, and the comment renderPlanMarkdown makes of it with an empty diff. */
function padded(body: string[], warnings: string[]): { lines: string[]; comment: string } {
  const lines = [...TITLE, ...warnings.flatMap((w) => [`> **Warning:** ${w}`, '']), ...body.slice(TITLE.length)];
  return { lines, comment: [...lines, '', NO_DIFF, ''].join('\n') };
}

test('the padding helper: warnings taking 39,001 characters render as exactly that many', () => {
  const warnings = warningsTaking(39_001);
  const md = renderPlanMarkdown(plan({ changes: false }), '', { warnings });
  assert.is(md.length - renderPlanMarkdown(plan({ changes: false }), '').length, 39_001);
});

// An unplaceable model with a 1,000-character reason: full at the first level, cut to 200 at the next.
const REASON = prose(1_000);
const oneUnplaceable = (reason: string) => [...TITLE, '**Plan: 0 to start, 0 to stop, 1 cannot be placed.**', '', ...CANNOT_PLACE, `| m | 1 | ${reason} |`];

test('a body of exactly 64,400 characters fits: every cell stays whole (up to 1,000 characters)', () => {
  const full = oneUnplaceable(REASON);
  const { lines, comment } = padded(full, warningsTaking(ROOM - size(full)));
  assert.is(size(lines), ROOM);
  const md = renderPlanMarkdown(plan({ unplaceable: [{ model: 'm', missing: 1, reason: REASON }] }), '', { warnings: warningsTaking(ROOM - size(full)) });
  assert.is(md, comment);
});

test('a body one character over 64,400 does not fit: long cells are cut to 200 characters', () => {
  const full = oneUnplaceable(REASON);
  const warnings = warningsTaking(ROOM + 1 - size(full));
  assert.is(size(padded(full, warnings).lines), ROOM + 1);
  const md = renderPlanMarkdown(plan({ unplaceable: [{ model: 'm', missing: 1, reason: REASON }] }), '', { warnings });
  assert.is(md, padded(oneUnplaceable(`${REASON.slice(0, 199)}…`), warnings).comment);
});

test('500 stops too many for rows: grouped per model and reason, the reason still whole up to 200 characters', () => {
  const why = prose(100);
  const md = renderPlanMarkdown(plan({ actions: Array.from({ length: 500 }, (_, i) => stop(i, why)) }), '');
  assert.is(
    md,
    [
      ...TITLE,
      '**Plan: 0 to start, 500 to stop, 0 cannot be placed.**',
      '',
      ...STOPS_PER_MODEL,
      `| old | 500 | \`old-[0-499]\` | \`gpu-[0000-0499]\` | ${why} |`,
      '',
      NO_DIFF,
      '',
    ].join('\n'),
  );
});

test('400 unplaceable models with 150-character reasons: cells cut to 80, and the 2 stops stay grouped per model', () => {
  const why = prose(150);
  const md = renderPlanMarkdown(plan({ actions: TWO_OLD, unplaceable: unplaceable(400, why) }), '');
  assert.is(
    md,
    [
      ...TITLE,
      '**Plan: 0 to start, 2 to stop, 400 cannot be placed.**',
      '',
      ...TWO_OLD_GROUPED,
      '',
      ...CANNOT_PLACE,
      ...Array.from({ length: 400 }, (_, i) => `| model-${i} | 1 | ${why.slice(0, 79)}… |`),
      '',
      NO_DIFF,
      '',
    ].join('\n'),
  );
});

test('1,000 unplaceable models: the last resort shows the most rows that fit exactly (500 here), stops still grouped, and says how many are left out', () => {
  const why = prose(150);
  const body = [
    ...TITLE,
    '**Plan: 0 to start, 2 to stop, 1000 cannot be placed.**',
    '',
    ...TWO_OLD_GROUPED,
    '',
    ...CANNOT_PLACE,
    ...Array.from({ length: 500 }, (_, i) => `| model-${i} | 1 | ${why.slice(0, 59)}… |`),
    '| … and 500 more (llmgw plan --format json lists every one) | | |',
  ];
  const warnings = warningsTaking(ROOM - size(body));
  const { lines, comment } = padded(body, warnings);
  assert.is(size(lines), ROOM);
  const md = renderPlanMarkdown(plan({ actions: TWO_OLD, unplaceable: unplaceable(1_000, why) }), '', {
    warnings,
  });
  assert.is(md, comment);
});

test('100 new specs with long argv: the last resort shows the most that fit exactly (20 here), each cut to 1,200 characters, and says how many more are in models.yaml', () => {
  const word = 'x'.repeat(2_000);
  const specs = Array.from({ length: 100 }, (_, i) => ({ model: `model-${i}`, spec: 'abcd1234', argv: ['vllm', 'serve', word] }));
  const argv = `vllm serve ${word}`.slice(0, 1_199) + '…';
  const body = [
    ...TITLE,
    '**No changes. The fleet matches models.yaml.**',
    '',
    '<details>',
    '<summary>argv of 100 new or changed specs (once per model)</summary>',
    ...specs.slice(0, 20).flatMap((s) => ['', `**${s.model}** (spec \`abcd1234\`)`, '', '```sh', argv, '```']),
    '',
    '… and 80 more: see models.yaml.',
    '',
    '</details>',
  ];
  const warnings = warningsTaking(ROOM - size(body));
  const { lines, comment } = padded(body, warnings);
  assert.is(size(lines), ROOM);
  assert.is(renderPlanMarkdown(plan({ changes: false }), '', { warnings, specs }), comment);
});

// The diff's budget: 65,000 less the body (with its newline) less the frame (400).
const EMPTY_HEAD = [...TITLE, '**No changes. The fleet matches models.yaml.**'].join('\n') + '\n';
const BUDGET = MAX_CHARS - EMPTY_HEAD.length - 400;

/** Diff lines ("+…", each with its newline) taking exactly `total` characters, 1,000 at a time. */
function diffLines(total: number): string[] {
  const lines: string[] = [];
  for (let left = total; left > 0; left -= 1_000) lines.push(`+${'d'.repeat(Math.min(1_000, left) - 2)}`);
  return lines;
}

const diffComment = (all: string[], kept: string[], more: string[]) =>
  [EMPTY_HEAD, '<details>', `<summary>STATUS.md diff (+${all.length} −0)</summary>`, '', '```diff', kept.join('\n'), '```', ...more, '', '</details>', ''].join(
    '\n',
  );

test('a diff that takes exactly what is left of the 65,000 characters is shown whole', () => {
  const lines = diffLines(BUDGET);
  assert.is(size(lines), BUDGET);
  const md = renderPlanMarkdown(plan({ changes: false }), lines.join('\n') + '\n');
  assert.is(md, diffComment(lines, lines, []));
  assert.ok(md.length <= MAX_CHARS, `${md.length}`);
});

test('a diff one character longer than what is left loses its last line, and says so', () => {
  const lines = diffLines(BUDGET + 1);
  assert.is(size(lines), BUDGET + 1);
  const md = renderPlanMarkdown(plan({ changes: false }), lines.join('\n') + '\n');
  assert.is(md, diffComment(lines, lines.slice(0, -1), ['', '… and 1 more line of the diff.']));
});

test('a diff three lines too long says "… and 3 more lines"', () => {
  const lines = [...diffLines(BUDGET), '+a', '+b', '+c'];
  const md = renderPlanMarkdown(plan({ changes: false }), lines.join('\n') + '\n');
  assert.is(md, diffComment(lines, lines.slice(0, -3), ['', '… and 3 more lines of the diff.']));
});

test.run();
