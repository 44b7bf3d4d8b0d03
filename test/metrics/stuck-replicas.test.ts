// docs/operations.md#metrics: stalled and ejected replicas in the reconciler's
// metrics, from the same status report as STATUS.md — a count per model and kind
// (0 included, so an alert sees a 0), and one since-time series per such replica
// that goes away once it serves again.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildFleet } from '../../src/fleet/index.js';
import { createReconcilerMetrics } from '../../src/metrics/reconciler-metrics.js';
import { stuckCounts, stuckSince } from '../../src/metrics/fleet-gauges.js';
import { summarize } from '../../src/status/summarize.js';
import type { TickResult } from '../../src/tick/result.js';
import type { RouterObservation } from '../../src/types/snapshot.js';
import { emptyState } from '../../src/types/state.js';
import { parseExposition, promtoolCheck, valueOf } from '../helpers/prometheus.js';
import { NOW, config, gpus, model, nodeConfig, replica, report, snapshot, up } from '../fixtures/index.js';

const STALLED = '2026-11-29T07:58:30Z';
const EJECTED = '2026-11-29T07:59:10Z';

function router(ejected: Record<string, string>): RouterObservation {
  const entries = Object.entries(ejected).map(([id, since]) => [id, { since, until: '2026-11-29T08:00:40Z', reason: 'stalled' as const, count: 1 }]);
  return { name: 'rt-1', reachable: true, report: { version: 1, startedAt: '2026-11-28T00:00:00Z', lastUsed: {}, ejected: Object.fromEntries(entries) } };
}

/** m-0 stalled (its agent says so), m-1 ejected by the one router, m-2 serving; model q has none of either. */
function status(opts: { stalled?: boolean; ejected?: boolean } = { stalled: true, ejected: true }) {
  const c = config([nodeConfig('n1')], {}, [model('m', { gpus: 1, replicas: 3 }), model('q', { gpus: 1, replicas: 1 })]);
  const load = (stalledSince?: string) => ({ running: 2, waiting: 0, progress: 7, ...(stalledSince ? { stalledSince } : {}) });
  const reps = [
    replica('m-0', [0], { load: load(opts.stalled ? STALLED : undefined) }),
    replica('m-1', [1], { load: load() }),
    replica('m-2', [2], { load: load() }),
    replica('q-0', [3], { model: 'q', load: load() }),
  ];
  const snap = snapshot([up('n1', report(gpus(4), reps))], [router(opts.ejected ? { 'm-1': EJECTED } : {})]);
  return summarize(buildFleet(c, snap, emptyState(), NOW), []);
}

const tick = { verdict: { kind: 'noop' }, configInvalid: false, blocked: null, outcome: null } as unknown as TickResult;
const T = new Date('2026-11-29T08:00:00Z');

test('a stalled and an ejected replica are counted by model and kind, and a model with neither reads 0 for both', () => {
  assert.equal(stuckCounts(status()), [
    { model: 'm', kind: 'ejected', count: 1 },
    { model: 'm', kind: 'stalled', count: 1 },
    { model: 'q', kind: 'ejected', count: 0 },
    { model: 'q', kind: 'stalled', count: 0 },
  ]);
});

test('each stalled or ejected replica has its since-time in Unix seconds, by replica', () => {
  assert.equal(stuckSince(status()), [
    { model: 'm', replica: 'm-0', kind: 'stalled', since: Date.parse(STALLED) / 1000 },
    { model: 'm', replica: 'm-1', kind: 'ejected', since: Date.parse(EJECTED) / 1000 },
  ]);
});

test('the gauges after a tick, and a replica that serves again loses its since series at the next', async () => {
  const m = createReconcilerMetrics();
  m.recordTick({ startedAt: T, finishedAt: T, result: tick, status: status() });
  const s = parseExposition(await m.registry.metrics());
  assert.is(valueOf(s, 'llmgw_replicas_stuck', { model: 'm', kind: 'stalled' }), 1);
  assert.is(valueOf(s, 'llmgw_replicas_stuck', { model: 'm', kind: 'ejected' }), 1);
  assert.is(valueOf(s, 'llmgw_replicas_stuck', { model: 'q', kind: 'stalled' }), 0);
  assert.is(valueOf(s, 'llmgw_replica_stuck_since_timestamp_seconds', { model: 'm', replica: 'm-0', kind: 'stalled' }), Date.parse(STALLED) / 1000);
  assert.is(valueOf(s, 'llmgw_replica_stuck_since_timestamp_seconds', { model: 'm', replica: 'm-1', kind: 'ejected' }), Date.parse(EJECTED) / 1000);
  assert.is(valueOf(s, 'llmgw_replica_stuck_since_timestamp_seconds', { model: 'm', replica: 'm-2', kind: 'stalled' }), undefined);

  m.recordTick({ startedAt: T, finishedAt: T, result: tick, status: status({ ejected: true }) });
  const later = parseExposition(await m.registry.metrics());
  assert.is(valueOf(later, 'llmgw_replica_stuck_since_timestamp_seconds', { model: 'm', replica: 'm-0', kind: 'stalled' }), undefined);
  assert.is(valueOf(later, 'llmgw_replicas_stuck', { model: 'm', kind: 'stalled' }), 0);
  assert.is(valueOf(later, 'llmgw_replicas_stuck', { model: 'm', kind: 'ejected' }), 1);
});

test('promtool accepts the exposition with stuck replicas in it (names, help, label values)', async () => {
  const m = createReconcilerMetrics();
  m.recordTick({ startedAt: T, finishedAt: T, result: tick, status: status() });
  assert.equal(promtoolCheck(await m.registry.metrics()), { status: 0, output: '' });
});

test.run();
