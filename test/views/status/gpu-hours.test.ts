// STATUS.md's GPU-hours section (src/views/status/gpu-hours.ts): what it shows,
// and that reading it back and rendering it again gives the same bytes — the
// copy every later tick of a UTC date makes, and `plan --base` makes from REF.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ClosedDaysHours, FleetDayHours } from '../../../src/types/gpu-hours.js';
import { parseGpuHoursSection, renderGpuHoursSection } from '../../../src/views/status/gpu-hours.js';

const fleet = (serving: number, idle: number, free: number, idleShare: number | null): FleetDayHours => ({
  serving,
  idle,
  transit: 0.5,
  free,
  unhealthy: 0,
  other: 0,
  unreachable: 1.25,
  cordoned: 0,
  unobserved: 2,
  idleShare,
});

const HOURS: ClosedDaysHours = {
  computedOn: '2026-11-30',
  yesterday: {
    since: '2026-11-29T00:00:00.000Z',
    until: '2026-11-30T00:00:00.000Z',
    models: [
      { model: 'llama_3.1', serving: 36, idle: 12, idleShare: 0.25 },
      { model: 'qwen', serving: 0, idle: 0, idleShare: null },
    ],
    fleet: fleet(36, 12, 100, 0.25),
  },
  last7Days: {
    since: '2026-11-23T00:00:00.000Z',
    until: '2026-11-30T00:00:00.000Z',
    models: [
      { model: 'llama_3.1', serving: 252.33, idle: 84.67, idleShare: 0.25 },
      { model: 'qwen', serving: 10, idle: 30, idleShare: 0.75 },
    ],
    fleet: fleet(262.33, 114.67, 700, 0.3),
  },
};

const status = (section: string[]) => ['# Fleet status: t', '', 'Nothing needs attention.', '', ...section].join('\n') + '\n';

test('the section: the spans by date, one row per model and the fleet (serving, idle, idle share), then every fleet bucket', () => {
  const lines = renderGpuHoursSection(HOURS);
  assert.is(lines[0], '## GPU-hours');
  assert.match(lines[2] ?? '', /computed on 2026-11-30 by its first tick .*yesterday is 2026-11-29, the last 7 days are 2026-11-23 to 2026-11-29\./);
  assert.ok(lines.includes('| llama\\_3.1 | 36.00 | 12.00 | 25% | 252.33 | 84.67 | 25% |'), lines.join('\n'));
  assert.ok(lines.includes('| qwen | 0.00 | 0.00 | — | 10.00 | 30.00 | 75% |'));
  assert.ok(lines.includes('| **Fleet** | 36.00 | 12.00 | 25% | 262.33 | 114.67 | 30% |'));
  assert.ok(lines.includes('| unreachable | 1.25 | 1.25 |'));
  assert.ok(lines.includes('| unobserved | 2.00 | 2.00 |'));
  assert.not.ok(lines.some((l) => l.includes('recomputes')));
});

test('read back, the section is the same data, and renders to the same bytes', () => {
  const text = status(renderGpuHoursSection(HOURS));
  assert.equal(parseGpuHoursSection(text), HOURS);
  assert.is(status(renderGpuHoursSection(parseGpuHoursSection(text)!)), text);
});

test('a section between others is found and read to its end; a STATUS.md without one reads as none', () => {
  const text = status([...renderGpuHoursSection(HOURS), '## Nodes', '', 'Every node is reachable.']);
  assert.equal(parseGpuHoursSection(text), HOURS);
  assert.is(parseGpuHoursSection(status(['## Nodes', '', 'x'])), null);
});

test('figures shown ahead of the tick that recomputes them say so, and read back with that date', () => {
  const ahead = { ...HOURS, recomputedOn: '2026-12-01' };
  const lines = renderGpuHoursSection(ahead);
  assert.ok(lines.includes('These are the figures of 2026-11-30: the first tick of 2026-12-01 recomputes them (for a pull request, after merge).'));
  assert.equal(parseGpuHoursSection(status(lines)), ahead);
});

test('past 20 models the rest and the fleet fold into a <details>, and still read back whole', () => {
  const models = Array.from({ length: 30 }, (_, i) => ({
    model: `m${String(i).padStart(2, '0')}`,
    serving: i,
    idle: 1,
    idleShare: Math.round((1 / (i + 1)) * 100) / 100,
  }));
  const many: ClosedDaysHours = { ...HOURS, yesterday: { ...HOURS.yesterday, models }, last7Days: { ...HOURS.last7Days, models } };
  const lines = renderGpuHoursSection(many);
  assert.ok(lines.includes('<details><summary>10 more models, and the fleet</summary>'), lines.join('\n'));
  assert.is(lines.filter((l) => l.startsWith('| m')).length, 30);
  const text = status(lines);
  assert.equal(parseGpuHoursSection(text), many);
  assert.is(status(renderGpuHoursSection(parseGpuHoursSection(text)!)), text);
});

test('a section edited by hand is not vouched for: read as none, so the next tick recomputes it', () => {
  const text = status(renderGpuHoursSection(HOURS));
  assert.is(parseGpuHoursSection(text.replace('| 36.00 | 12.00 | 25% | 252.33', '| 36 | 12.00 | 25% | 252.33')), null);
  assert.is(parseGpuHoursSection(text.replace('| unobserved | 2.00 | 2.00 |\n', '')), null);
  assert.is(parseGpuHoursSection(text.replace('computed on 2026-11-30', 'computed on yesterday')), null);
});

test.run();
