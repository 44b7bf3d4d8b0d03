// The markdown plan hides nothing (docs/commands.md plan): one comment of at
// most 65,000 characters however large the fleet; every stop and every
// unplaceable model listed; starts grouped per model past 30 rows; the argv of
// every new or changed spec once per model. Golden files: test/plan/golden
// (demo and large examples in golden.test.ts, the 2,000-node plan here).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { expandHostlist } from '../../src/config/hostlist.js';
import { newSpecs } from '../../src/plan/new-specs.js';
import { MAX_CHARS, renderPlanMarkdown } from '../../src/views/plan/render-markdown.js';
import { renderPlanText } from '../../src/views/plan/render-text.js';
import { planTick } from '../../src/tick/plan.js';
import { previewTick } from '../../src/tick/preview.js';
import type { Plan, StartAction, StopAction } from '../../src/types/plan.js';
import { emptyState } from '../../src/types/state.js';
import { golden } from '../helpers/golden.js';
import { HUGE_NOW, hugeWorld } from './huge-world.js';

const start = (i: number, model = 'm'): StartAction => ({
  op: 'start',
  replica: `${model}-${i}`,
  model,
  port: 8000 + (i % 8),
  placement: [{ node: `gpu-${String(i % 400).padStart(4, '0')}`, gpus: [i % 8] }],
  weights: i % 3 === 0 ? 'node' : 'none',
  reason: 'missing',
});
const stop = (i: number, model = 'old'): StopAction => ({
  op: 'stop',
  replica: `${model}-${i}`,
  model,
  placement: [{ node: `gpu-${String(i).padStart(4, '0')}`, gpus: [0, 1] }],
  reason: 'not in models.yaml',
  waitFor: [],
});
const plan = (actions: Plan['actions'], unplaceable: Plan['unplaceable'] = []): Plan => ({ version: 1, changes: true, blocked: null, actions, unplaceable });

/** Every id a markdown plan names, whether in a row of its own or in a grouped hostlist. */
function namedIds(md: string): Set<string> {
  const out = new Set<string>();
  for (const line of md.split('\n')) {
    const row = /^\| [+−] (start|stop) \| ([^|]+) \|/.exec(line);
    if (row) out.add(row[2]!.trim());
    const group = /^\| [^|]+ \| \d+ \| `([^`]+)` \| `[^`]*` \| [^|]+ \|$/.exec(line);
    if (group) {
      const r = expandHostlist(group[1]!);
      if (r.ok) for (const n of r.names) out.add(n);
    }
  }
  return out;
}

test("351 starts and 17 stops (the issue's plan): starts grouped per model, every one of the 17 stops in its own row", () => {
  const actions = [...Array.from({ length: 351 }, (_, i) => start(i, i % 2 ? 'a' : 'b')), ...Array.from({ length: 17 }, (_, i) => stop(i))];
  const md = renderPlanMarkdown(plan(actions), '');
  assert.ok(md.length <= MAX_CHARS);
  for (let i = 0; i < 17; i++) assert.ok(md.includes(`| − stop | old-${i} | old |`), `old-${i}`);
  assert.match(md, /^\| a \| 175 \| `gpu-\[[0-9,-]+\]` \| node \d+, none \d+ \|$/m);
  assert.match(md, /^\| b \| 176 \| /m);
  assert.not.match(md, /\| \+ start \|/);
  assert.not.match(md, /and \d+ more/);
});

test('30 starts are rows, 31 are grouped', () => {
  assert.match(renderPlanMarkdown(plan(Array.from({ length: 30 }, (_, i) => start(i))), ''), /\| \+ start \| m-29 \|/);
  assert.not.match(renderPlanMarkdown(plan(Array.from({ length: 31 }, (_, i) => start(i))), ''), /\| \+ start \|/);
});

test('4,000 stops: too many for rows, so grouped per model and reason, every id still named', () => {
  const actions = Array.from({ length: 4000 }, (_, i) => stop(i, i % 3 === 0 ? 'x' : 'y'));
  const md = renderPlanMarkdown(plan(actions), '');
  assert.ok(md.length <= MAX_CHARS, `${md.length}`);
  const ids = namedIds(md);
  for (const a of actions) assert.ok(ids.has(a.replica), a.replica);
  assert.not.match(md, /and \d+ more \(llmgw plan/);
});

test('300 models that cannot be placed: every one listed by name', () => {
  const unplaceable = Array.from({ length: 300 }, (_, i) => ({
    model: `model-${i}`,
    missing: 2,
    reason: 'needs 2 whole B200 nodes in one fabric; free whole B200 nodes: ib-a 0, ib-b 0, ib-c 0, ib-d 0',
  }));
  const md = renderPlanMarkdown(plan([], unplaceable), '');
  assert.ok(md.length <= MAX_CHARS);
  for (const u of unplaceable) assert.ok(md.includes(`| ${u.model} | 2 |`), u.model);
});

test('text lists every stop, however many', () => {
  const actions = [...Array.from({ length: 50 }, (_, i) => start(i)), ...Array.from({ length: 1500 }, (_, i) => stop(i))];
  const text = renderPlanText(plan(actions), '', { color: false });
  for (let i = 0; i < 1500; i++) assert.ok(text.includes(`  - stop   old-${i} `), `old-${i}`);
});

test('the argv of a new or changed spec, once per model, collapsed; per-replica values stay placeholders, backticks cannot break out', () => {
  const md = renderPlanMarkdown(plan([start(1)]), '', {
    specs: [{ model: 'm', spec: 'abcd1234', argv: ['vllm', 'serve', '{weightsPath}', '--port', '{port}', '--chat-template', 'a b ```x'] }],
  });
  assert.match(
    md,
    /<details>\n<summary>argv of 1 new or changed spec \(once per model\)<\/summary>\n\n\*\*m\*\* \(spec `abcd1234`\)\n\n````sh\nvllm serve \{weightsPath\} --port \{port\} --chat-template 'a b ```x'\n````\n\n<\/details>/,
  );
});

test('the 2,000-node plan against its base: about a thousand actions of both causes, under the limit, stops and unplaceable all named; golden', () => {
  const w = hugeWorld();
  const tick = { config: w.pr, snapshot: w.snapshot, state: emptyState(), now: HUGE_NOW };
  const planned = planTick(tick);
  const specs = newSpecs(w.pr, w.base, planned.fleet, planned.plan);
  const preview = previewTick(planned, { before: null, base: planTick({ ...tick, config: w.base }).plan, respecced: new Set(specs.map((s) => s.model)) });
  assert.ok(
    preview.plan.actions.every((a) => a.model !== 'code-34b' || a.op !== 'start' || a.cause === 'change'),
    "a start with a new spec is the change's",
  );
  const causes = new Set(preview.plan.actions.map((a) => a.cause));
  assert.ok(preview.plan.actions.length >= 900 && preview.plan.actions.length <= 1300, `${preview.plan.actions.length} actions`);
  assert.equal([...causes].sort(), ['change', 'pending']);
  assert.ok(preview.plan.unplaceable.length > 0);
  const md = renderPlanMarkdown(preview.plan, preview.diff, {
    base: 'origin/main',
    warnings: [],
    specs,
    after: preview.after.report,
  });
  assert.ok(md.length <= MAX_CHARS, `${md.length} chars`);
  const ids = namedIds(md);
  for (const a of preview.plan.actions) if (a.op === 'stop') assert.ok(ids.has(a.replica), a.replica);
  for (const u of preview.plan.unplaceable) assert.ok(md.includes(`| ${u.model} | ${u.missing} |`), u.model);
  assert.match(md, /\*\*code-34b\*\* \(spec `[0-9a-f]{8}`\)/);
  golden('test/plan/golden/huge.md', md);
});

test.run();
