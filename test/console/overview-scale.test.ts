// The Overview of a very large fleet stays a page, not megabytes
// (src/console/pages/overview.ts): past MAX_FOLDED idle replicas the idle fold
// writes the first ones, longest unused, and says how many more and where
// every one is listed, as STATUS.md does.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { overviewBody } from '../../src/console/pages/overview.js';
import { MAX_FOLDED } from '../../src/views/status/render-markdown.js';
import type { IdleRow } from '../../src/status/types.js';
import { blankReport } from '../status/blank-report.js';

function idle(n: number): IdleRow[] {
  return Array.from({ length: n }, (_, i) => ({
    replica: `idle-${i}`,
    model: 'm',
    nodes: [`n${i}`],
    idleSeconds: 10_000_000 - i,
    idleSince: '2026-11-01T00:00:00Z',
  }));
}

const rowsOf = (html: string): string[] => [...html.matchAll(/data-key="(idle-\d+)"/g)].map((m) => m[1] ?? '');

test('past MAX_FOLDED idle replicas the Overview writes the first 500, counts them all, and says how many more and where they are', () => {
  const page = overviewBody(blankReport({ idle: idle(MAX_FOLDED + 7) })).text;
  const rows = rowsOf(page);
  assert.is(rows.length, MAX_FOLDED);
  assert.is(rows[0], 'idle-0');
  assert.is(rows[MAX_FOLDED - 1], `idle-${MAX_FOLDED - 1}`);
  assert.ok(page.includes(`<summary>${MAX_FOLDED + 7} idle replicas</summary>`));
  assert.match(page, /… and 7 more: each model's page and the <a href="\/status.json">Status JSON<\/a> list every one\./);
});

test('exactly MAX_FOLDED idle replicas: every one written, no "… and N more" line', () => {
  const page = overviewBody(blankReport({ idle: idle(MAX_FOLDED) })).text;
  assert.is(rowsOf(page).length, MAX_FOLDED);
  assert.ok(page.includes(`<summary>${MAX_FOLDED} idle replicas</summary>`));
  assert.not.match(page, /… and \d+ more/);
});

test.run();
