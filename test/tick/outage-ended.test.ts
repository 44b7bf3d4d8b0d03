// state.json `outageEnded` (docs/placement.md step 2): when each node's last outage
// ended, kept for lostAfter after that, so the surplus rule can tell a node that just came back.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { outagesEnded } from '../../src/tick/state.js';
import type { Snapshot } from '../../src/types/snapshot.js';
import { emptyState } from '../../src/types/state.js';

const NOW = new Date('2026-11-29T08:00:00Z');
const report = { version: 1 as const, gpus: [], replicas: [], storage: [], warnings: [] };
const snapshot: Snapshot = {
  version: 1,
  observedAt: NOW.toISOString(),
  nodes: [
    { name: 'a1', reachable: true, report },
    { name: 'a2', reachable: false, error: 'timeout', unreachableSince: '2026-11-29T07:50:00Z', lastReport: null },
  ],
  routers: [],
};

test('a node unreachable at the last tick that answers now ended its outage now; one still down did not', () => {
  const prev = { ...emptyState(), unreachableSince: { a1: '2026-11-29T07:30:00Z', a2: '2026-11-29T07:50:00Z' } };
  assert.equal(outagesEnded(prev, snapshot, NOW, 600_000), { a1: '2026-11-29T08:00:00Z' });
});

test('an ended outage is kept for lostAfter, then dropped', () => {
  const prev = { ...emptyState(), outageEnded: { a1: '2026-11-29T07:51:00Z', a3: '2026-11-29T07:50:00Z' } };
  assert.equal(outagesEnded(prev, snapshot, NOW, 600_000), { a1: '2026-11-29T07:51:00Z' });
});

test.run();
