// The PR plan's on-demand section (docs/config.md#on-demand-models): each ranged
// model's range and the count the committed demand gives it, with the last
// decision; nothing for a config of fixed counts.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { renderPlanMarkdown } from '../../../src/views/plan/render-markdown.js';
import type { Plan } from '../../../src/types/plan.js';
import type { StatusReport } from '../../../src/status/types.js';

const plan: Plan = { version: 1, changes: false, blocked: null, actions: [], unplaceable: [] };
const last = { at: '2026-12-01T12:00:00Z', from: 0, to: 1, reason: '12 waiting at rt-a' };
const after = (models: StatusReport['models']) => ({ models }) as unknown as StatusReport;

test('a ranged model: its range, the count now, what waits and why', () => {
  const out = renderPlanMarkdown(plan, '', {
    after: after([
      { name: 'qwen', desired: 1, running: 0, starting: 1, failed: 0, scale: { min: 0, max: 2, state: 'waking', waiting: 12, last } },
      { name: 'fixed', desired: 2, running: 2, starting: 0, failed: 0 },
    ]),
  });
  assert.ok(out.includes('**On-demand models**'), out);
  // As read: markdown's escapes taken off.
  const read = out.replace(/\\/g, '');
  assert.ok(read.includes('- qwen: 0–2 (now 1, waking), 12 waiting; last scaled 0→1 at 2026-12-01T12:00:00Z (12 waiting at rt-a)'), out);
  assert.not.ok(out.includes('- fixed:'), out);
});

test('fixed counts only: no section', () => {
  const out = renderPlanMarkdown(plan, '', { after: after([{ name: 'fixed', desired: 2, running: 2, starting: 0, failed: 0 }]) });
  assert.not.ok(out.includes('On-demand'), out);
});

test('a ranged model with nothing waiting and no decision yet: its range and count alone', () => {
  const out = renderPlanMarkdown(plan, '', {
    after: after([{ name: 'qwen', desired: 1, running: 1, starting: 0, failed: 0, scale: { min: 0, max: 2, state: 'awake', waiting: 0, last: null } }]),
  });
  assert.ok(out.replace(/\\/g, '').split('\n').includes('- qwen: 0–2 (now 1)'), out);
});

test.run();
