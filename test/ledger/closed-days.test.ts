// Closed UTC days for STATUS.md (src/ledger/closed-days.ts): yesterday and the
// last 7 days before the tick's UTC date, counted as `llmgw report` counts them.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { closedDays, closedRanges, idleShare } from '../../src/ledger/closed-days.js';
import { countCommit, gpuHours, type LedgerCommit } from '../../src/ledger/ledger.js';
import type { NodeObservation } from '../../src/types/snapshot.js';
import { emptyState } from '../../src/types/state.js';
import { config, gpus, model, nodeConfig, replica, report, up } from '../fixtures/index.js';

const H = 3_600_000;
const D0 = Date.parse('2026-11-20T00:00:00Z');
const at = (h: number) => new Date(D0 + h * H).toISOString();
const base = config([nodeConfig('a')], {}, [model('m'), model('n')]);

function commit(h: number, nodes: NodeObservation[]): LedgerCommit {
  return { time: at(h), snapshot: { version: 1, observedAt: at(h), nodes, routers: [] }, state: emptyState(), config: base };
}

const serving = [up('a', report(gpus(2), [replica('m-0', [0])]))];
const none = [up('a', report(gpus(2)))];

test('the ranges: yesterday and the 7 days before the UTC date of `now`, midnight to midnight', () => {
  assert.equal(closedRanges('2026-11-27T00:30:00Z'), {
    day: '2026-11-27',
    yesterday: { since: '2026-11-26T00:00:00.000Z', until: '2026-11-27T00:00:00.000Z' },
    last7Days: { since: '2026-11-20T00:00:00.000Z', until: '2026-11-27T00:00:00.000Z' },
  });
});

test('figures equal gpuHours over the same ranges; both spans list every model (0.00 where one had none)', () => {
  // m serves 2026-11-20 00:00 to 2026-11-25 12:00, then nothing: yesterday (the 26th) it had no GPU.
  const history = [commit(0, serving), ...Array.from({ length: 6 }, (_, d) => commit(24 * d + 12, d < 5 ? serving : none)), commit(24 * 6 + 12, none)];
  const now = at(24 * 7 + 0.5);
  const h = closedDays(history.map(countCommit), now)!;
  const r = closedRanges(now);
  const week = gpuHours(history, r.last7Days);
  const day = gpuHours(history, r.yesterday);
  assert.is(h.computedOn, '2026-11-27');
  assert.equal(
    h.last7Days.models.map((m) => [m.model, m.serving, m.idle]),
    week.models.map((m) => [m.model, m.serving, m.idle]),
  );
  assert.equal(h.last7Days.models[0], { model: 'm', serving: 5 * 24 + 12, idle: 0, idleShare: 0 });
  assert.equal(h.yesterday.models, [
    { model: 'm', serving: 0, idle: 0, idleShare: null },
    { model: 'n', serving: 0, idle: 0, idleShare: null },
  ]);
  assert.equal({ ...h.yesterday.fleet, idleShare: undefined }, { ...day.fleet, idleShare: undefined });
  assert.is(h.yesterday.fleet.free, 48);
});

test('a gap longer than 25 h inside the closed days: 25 h at the commit before it, the rest unobserved', () => {
  // One commit on the 25th at 12:00, none until the tick of the 27th: the 26th is covered until 13:00 only.
  const h = closedDays([commit(5 * 24 + 12, serving)].map(countCommit), at(7 * 24 + 0.5))!;
  assert.equal(
    h.yesterday.models.find((m) => m.model === 'm'),
    { model: 'm', serving: 13, idle: 0, idleShare: 0 },
  );
  assert.is(h.yesterday.fleet.unobserved, 2 * 11);
  assert.is(h.yesterday.fleet.free, 13);
});

test('no commit before the UTC date began: no closed day to show (a first day)', () => {
  assert.is(closedDays([commit(7 * 24 + 0.1, serving)].map(countCommit), at(7 * 24 + 5)), null);
  assert.is(closedDays([], at(7 * 24 + 5)), null);
});

test('idle share is idle of serving plus idle, two decimals, none when both are 0', () => {
  assert.equal([idleShare(3, 1), idleShare(2, 1), idleShare(0, 0), idleShare(0, 4)], [0.25, 0.33, null, 1]);
});

test.run();
