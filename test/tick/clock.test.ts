// One clock for the tick (docs/safety.md#clocks): repo times in this clock's future count as now; an outage starts no earlier than the previous tick.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { outagesAfter, previousOnThisClock, stateOnThisClock } from '../../src/tick/clock.js';
import { emptyState } from '../../src/types/state.js';
import type { Snapshot } from '../../src/types/snapshot.js';

const NOW = new Date('2026-11-29T08:00:00Z');
const YEAR_AHEAD = '2027-11-29T08:00:00.000Z';

test('state.json times more than 5 minutes in the future count as now, each with a warning; times within the slack stay', () => {
  const warnings: string[] = [];
  const state = {
    ...emptyState(),
    unreachableSince: { g1: YEAR_AHEAD, g2: '2026-11-29T08:04:00.000Z' },
    lifecycle: {
      draining: { 'llama-0': { since: YEAR_AHEAD, reason: 'r', outOfTablesAt: YEAR_AHEAD } },
      rollouts: { llama: { spec: 's', stage: 'canary' as const, holdSince: YEAR_AHEAD } },
    },
  };
  const read = stateOnThisClock(state, NOW, (m) => warnings.push(m));
  assert.equal(read.unreachableSince, { g1: NOW.toISOString(), g2: '2026-11-29T08:04:00.000Z' });
  assert.equal(read.lifecycle?.draining['llama-0'], { since: NOW.toISOString(), reason: 'r', outOfTablesAt: NOW.toISOString() });
  assert.is(read.lifecycle?.rollouts.llama?.holdSince, NOW.toISOString());
  assert.is(warnings.length, 4);
  assert.ok(
    warnings.some((w) => w.startsWith('unreachableSince of g1 is 2027-11-29T08:00:00.000Z, in the future of this clock')),
    warnings.join('\n'),
  );
});

const snap = (observedAt: string, nodes: Snapshot['nodes']): Snapshot => ({ version: 1, observedAt, nodes, routers: [] }) as unknown as Snapshot;
const down = (name: string, since: string | null) =>
  ({ name, reachable: false, error: 'x', unreachableSince: since, lastReport: null }) as Snapshot['nodes'][number];
const up = (name: string) => ({ name, reachable: true, report: null }) as unknown as Snapshot['nodes'][number];

test("the committed snapshot's unreachableSince in the future counts as now", () => {
  const warnings: string[] = [];
  const read = previousOnThisClock(snap('2026-11-29T07:59:00Z', [down('g1', YEAR_AHEAD)]), NOW, (m) => warnings.push(m));
  assert.is(read?.nodes[0]?.reachable === false ? read.nodes[0].unreachableSince : 'reachable', NOW.toISOString());
  assert.is(warnings.length, 1);
});

test("an outage that began this tick starts no earlier than the previous tick's observedAt (a clock a year behind makes no year-long outage)", () => {
  const previous = snap('2026-11-29T07:59:00.000Z', [up('g1'), down('g2', '2026-11-29T07:00:00.000Z')]);
  // This tick's clock is a year behind: gather stamped g1's new outage with it.
  const now = snap('2025-11-29T08:00:00.000Z', [down('g1', '2025-11-29T08:00:00.000Z'), down('g2', '2026-11-29T07:00:00.000Z')]);
  const out = outagesAfter(previous, now);
  const since = out.nodes.map((n) => (n.reachable ? null : n.unreachableSince));
  assert.equal(since, ['2026-11-29T07:59:00.000Z', '2026-11-29T07:00:00.000Z'], 'an outage that went on keeps its start');
});

test.run();
