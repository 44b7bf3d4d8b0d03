import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { emptyOutcome, type ApplyOutcome } from '../../src/apply/outcome.js';
import { recordObservedFailures, updateState } from '../../src/tick/state.js';
import { commitMessage, tickNews } from '../../src/tick/result.js';
import type { Fleet } from '../../src/types/fleet.js';
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

test('the commit message says what was applied, or why nothing was', () => {
  const outcome = { ...emptyOutcome(), started: 2, stopped: 1 };
  const base = { configInvalid: false, dirtyConfig: [], blocked: null, outcome };
  assert.is(commitMessage('prod-eu', base), 'llmgw: started 2, stopped 1 (prod-eu)');
  assert.is(
    commitMessage('prod-eu', { ...base, outcome: { ...outcome, failed: 1, deferred: 2 } }),
    'llmgw: started 2, stopped 1, 1 failed, 2 waiting (prod-eu)',
  );
  assert.is(commitMessage('prod-eu', { ...base, outcome: emptyOutcome() }), 'llmgw: status (prod-eu)');
  assert.is(
    commitMessage('prod-eu', { ...base, outcome: emptyOutcome() }, { running: 7, starting: 1, failed: 0 }),
    'llmgw: status: 7 running, 1 starting (prod-eu)',
  );
  assert.is(commitMessage('prod-eu', { ...base, outcome: emptyOutcome() }, { running: 0, starting: 0, failed: 0 }), 'llmgw: status: no replicas (prod-eu)');
  assert.is(commitMessage('prod-eu', { ...base, blocked: 'too many stops' }), 'llmgw: plan blocked, nothing applied (prod-eu)');
  assert.is(commitMessage('prod-eu', { ...base, dirtyConfig: ['models.yaml'] }), 'llmgw: uncommitted edits to models.yaml, nothing applied (prod-eu)');
  assert.is(commitMessage(null, { ...base, configInvalid: true }), 'llmgw: config invalid, nothing applied');
});

test('the commit message names the events of the tick: nodes lost or back, models down or serving again, replicas moved off a lost node', () => {
  const base = { configInvalid: false, dirtyConfig: [], blocked: null };
  const lost = [{ event: 'node.lost' as const, subject: 'gpu-a03' }];
  assert.is(
    commitMessage('prod-eu', { ...base, outcome: { ...emptyOutcome(), started: 2 } }, undefined, { events: lost, moved: 2 }),
    'llmgw: gpu-a03 lost; 2 replicas moved (prod-eu)',
  );
  assert.is(
    commitMessage('prod-eu', { ...base, outcome: { ...emptyOutcome(), started: 3, stopped: 1 } }, undefined, { events: lost, moved: 2 }),
    'llmgw: gpu-a03 lost; 2 replicas moved, started 1, stopped 1 (prod-eu)',
  );
  const many = [
    { event: 'node.lost' as const, subject: 'gpu-a03' },
    { event: 'node.lost' as const, subject: 'gpu-a04' },
    { event: 'model.down' as const, subject: 'llama' },
    { event: 'node.recovered' as const, subject: 'gpu-b01' },
    { event: 'apply.failed' as const, subject: 'llama-0' },
  ];
  assert.is(
    commitMessage('prod-eu', { ...base, outcome: emptyOutcome() }, { running: 7, starting: 0, failed: 0 }, { events: many, moved: 0 }),
    'llmgw: gpu-a[03-04] lost; llama down; gpu-b01 back (prod-eu)',
  );
  assert.is(
    commitMessage('prod-eu', { ...base, blocked: 'x', outcome: emptyOutcome() }, undefined, { events: lost, moved: 0 }),
    'llmgw: gpu-a03 lost; plan blocked, nothing applied (prod-eu)',
  );
});

test('replicas moved: starts that took, per model, up to the replicas that model has on lost nodes', () => {
  const fleet = {
    replicas: [
      { model: 'm', lost: true },
      { model: 'm', lost: false },
      { model: 'q', lost: true },
    ],
  } as unknown as Fleet;
  const result = (model: string, status: 'ok' | 'failed', op: 'start' | 'stop' = 'start') => ({ op, replica: `${model}-9`, model, status, nodes: ['x'] });
  const outcome = {
    ...emptyOutcome(),
    started: 3,
    results: [result('m', 'ok'), result('m', 'ok'), result('q', 'failed'), result('z', 'ok'), result('q', 'ok', 'stop')],
  };
  assert.is(tickNews([], fleet, outcome).moved, 1);
  assert.is(tickNews([], fleet, null).moved, 0);
});

test.run();
