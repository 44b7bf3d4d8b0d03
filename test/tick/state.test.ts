import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { emptyOutcome, type ApplyOutcome } from '../../src/apply/outcome.js';
import { recordObservedFailures, updateState } from '../../src/tick/state.js';
import type { Snapshot } from '../../src/types/snapshot.js';
import { emptyState } from '../../src/types/state.js';

const report = { version: 1 as const, gpus: [], replicas: [], storage: [], warnings: [] };
const snapshot: Snapshot = {
  version: 1,
  observedAt: '2026-11-29T08:00:00Z',
  nodes: [
    { name: 'a', reachable: true, report },
    { name: 'b', reachable: false, error: 'refused', unreachableSince: '2026-11-29T07:50:00Z', lastReport: report },
    { name: 'c', reachable: false, error: 'refused', unreachableSince: null, lastReport: null },
  ],
  routers: [],
};

test('unreachableSince keeps exactly the nodes the snapshot saw unreachable since a known time', () => {
  const prev = { ...emptyState(), unreachableSince: { a: '2026-11-29T07:00:00Z' } };
  const next = updateState(prev, { snapshot, outcome: emptyOutcome(), now: new Date('2026-11-29T08:00:00Z') });
  assert.equal(next.unreachableSince, { b: '2026-11-29T07:50:00Z' });
});

test('a failed start is recorded per failing node, and failures older than 30 minutes are pruned', () => {
  const prev = {
    ...emptyState(),
    startFailures: [
      { model: 'm', node: 'a', replica: 'm-0', at: '2026-11-29T07:29:59Z', error: 'old' },
      { model: 'm', node: 'a', replica: 'm-1', at: '2026-11-29T07:31:00Z', error: 'recent' },
    ],
    notified: { 'node.lost/x': '2026-11-29T07:00:00Z' },
  };
  const outcome: ApplyOutcome = {
    ...emptyOutcome(),
    failures: [
      { op: 'start', replica: 'm-2', model: 'm', host: 'b', error: 'no GPU' },
      { op: 'stop', replica: 'm-3', model: 'm', host: 'a', error: 'busy' },
      { op: 'endpoints', replica: null, model: null, host: 'rt-1', error: 'down' },
    ],
  };
  const next = updateState(prev, { snapshot, outcome, now: new Date('2026-11-29T08:00:00Z') });
  assert.equal(next.startFailures, [
    { model: 'm', node: 'a', replica: 'm-1', at: '2026-11-29T07:31:00Z', error: 'recent' },
    { model: 'm', node: 'b', replica: 'm-2', at: '2026-11-29T08:00:00Z', error: 'no GPU' },
  ]);
  assert.equal(next.notified, prev.notified);
});

test('a replica reported failed is recorded as a failed start once; a later tick seeing it still failed does not refresh the time', () => {
  const failed = { id: 'm-4', model: 'm', gpus: [0], state: 'failed' as const };
  const seen: Snapshot = {
    ...snapshot,
    nodes: [{ name: 'a', reachable: true, report: { ...report, replicas: [failed, { ...failed, id: 'm-5', state: 'running' }] } }],
  };
  const first = recordObservedFailures(emptyState(), seen, new Date('2026-11-29T08:00:00.250Z'));
  assert.equal(
    first.startFailures.map((f) => [f.node, f.model, f.replica, f.at]),
    [['a', 'm', 'm-4', '2026-11-29T08:00:00Z']],
  );
  const second = recordObservedFailures(first, seen, new Date('2026-11-29T08:01:00Z'));
  assert.is(second, first);
});

test.run();
