import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ApplyOutcome } from '../../src/apply/outcome.js';
import { createReconcilerMetrics } from '../../src/metrics/reconciler-metrics.js';
import { nodeStates } from '../../src/metrics/fleet-gauges.js';
import { summarize } from '../../src/status/index.js';
import type { StatusReport } from '../../src/status/types.js';
import { parseExposition, promtoolCheck, sumOf, valueOf } from '../helpers/prometheus.js';
import { sampleFleet } from '../status/sample.js';
import { tickResult } from '../fixtures/tick-result.js';

function outcome(results: ApplyOutcome['results'], failures: ApplyOutcome['failures'] = []): ApplyOutcome {
  const count = (s: string, op?: string) => results.filter((r) => r.status === s && (op === undefined || r.op === op)).length;
  return {
    results,
    failures,
    routerTables: [],
    started: count('ok', 'start'),
    stopped: count('ok', 'stop'),
    deferred: count('deferred'),
    failed: count('failed'),
  };
}

const T0 = new Date('2026-11-29T08:00:00Z');
const T1 = new Date('2026-11-29T08:00:02.5Z');
const status = (): StatusReport => summarize(sampleFleet(), []);

async function samplesOf(m: ReturnType<typeof createReconcilerMetrics>) {
  return parseExposition(await m.registry.metrics());
}

test('nodes are counted once each, lost before unreachable before cordoned before reachable', () => {
  // sampleFleet: a1 a2 b1 answer, a3 answers but is cordoned, a4 went quiet 5 minutes ago, b2 was never seen.
  assert.equal(nodeStates(status()), { reachable: 3, cordoned: 1, unreachable: 1, lost: 1 });
});

test('a tick sets the fleet gauges to the status the tick left: nodes, GPUs by class and bucket, replicas by model and state', async () => {
  const m = createReconcilerMetrics();
  m.recordTick({ startedAt: T0, finishedAt: T1, result: tickResult({ outcome: outcome([]) }), status: status() });
  const s = await samplesOf(m);
  for (const [state, n] of Object.entries({ reachable: 3, cordoned: 1, unreachable: 1, lost: 1 })) assert.is(valueOf(s, 'llmgw_nodes', { state }), n, state);
  const h100 = { free: 10, used: 5, unhealthy: 1, unreachable: 8, cordoned: 8 };
  for (const [bucket, n] of Object.entries(h100)) assert.is(valueOf(s, 'llmgw_gpus', { class: 'H100', bucket }), n, `H100 ${bucket}`);
  assert.is(sumOf(s, 'llmgw_gpus', { class: 'H100' }), 32, 'each H100 in exactly one bucket');
  assert.is(valueOf(s, 'llmgw_gpus', { class: 'H200', bucket: 'used' }), 1);
  assert.is(sumOf(s, 'llmgw_gpus', { class: 'H200' }), 8);
  const replicas = { 'llama-70b': { running: 1, starting: 1, failed: 0 }, 'llama-8b': { running: 2, starting: 0, failed: 0 } };
  for (const [model, states] of Object.entries(replicas)) {
    for (const [state, n] of Object.entries(states)) assert.is(valueOf(s, 'llmgw_replicas', { model, state }), n, `${model} ${state}`);
    assert.is(valueOf(s, 'llmgw_replicas_desired', { model }), 2);
  }
  assert.is(valueOf(s, 'llmgw_last_tick_timestamp_seconds'), T1.getTime() / 1000);
  assert.is(valueOf(s, 'llmgw_tick_duration_seconds_count'), 1);
  assert.is(valueOf(s, 'llmgw_tick_duration_seconds_sum'), 2.5);
  assert.is(valueOf(s, 'llmgw_tick_duration_seconds_bucket', { le: '2.5' }), 1);
  assert.is(valueOf(s, 'llmgw_tick_duration_seconds_bucket', { le: '1' }), 0);
  assert.is(valueOf(s, 'llmgw_config_valid'), 1);
  assert.is(valueOf(s, 'llmgw_plan_blocked'), 0);
});

test('actions count what was carried out by op; failures count one per host; both add up over ticks', async () => {
  const m = createReconcilerMetrics();
  const before = await samplesOf(m);
  assert.is(valueOf(before, 'llmgw_actions_total', { op: 'start' }), 0, 'the series exist before the first tick');
  assert.is(valueOf(before, 'llmgw_apply_failures_total'), 0);
  const r = (replica: string, op: 'start' | 'stop', st: 'ok' | 'failed' | 'deferred') => ({ op, replica, model: 'm', status: st, nodes: ['n1'] });
  m.recordTick({
    startedAt: T0,
    finishedAt: T1,
    status: null,
    result: tickResult({
      outcome: outcome(
        [r('m-0', 'start', 'ok'), r('m-1', 'start', 'ok'), r('m-2', 'start', 'failed'), r('old-0', 'stop', 'ok'), r('old-1', 'stop', 'deferred')],
        [
          { op: 'start', replica: 'm-2', model: 'm', host: 'n1', error: 'refused' },
          { op: 'start', replica: 'm-2', model: 'm', host: 'n2', error: 'timeout' },
        ],
      ),
    }),
  });
  m.recordTick({ startedAt: T0, finishedAt: T1, status: null, result: tickResult({ outcome: outcome([r('m-2', 'start', 'ok')]) }) });
  const s = await samplesOf(m);
  assert.is(valueOf(s, 'llmgw_actions_total', { op: 'start' }), 3);
  assert.is(valueOf(s, 'llmgw_actions_total', { op: 'stop' }), 1);
  assert.is(valueOf(s, 'llmgw_apply_failures_total'), 2);
  assert.is(valueOf(s, 'llmgw_tick_duration_seconds_count'), 2);
});

test('a model gone from the status disappears from the gauges instead of keeping its last value', async () => {
  const m = createReconcilerMetrics();
  m.recordTick({ startedAt: T0, finishedAt: T1, result: tickResult(), status: status() });
  const fewer: StatusReport = {
    ...status(),
    models: status().models.filter((x) => x.name !== 'llama-8b'),
    replicas: status().replicas.filter((x) => x.model !== 'llama-8b'),
  };
  m.recordTick({ startedAt: T0, finishedAt: T1, result: tickResult(), status: fewer });
  const s = await samplesOf(m);
  assert.is(valueOf(s, 'llmgw_replicas', { model: 'llama-8b', state: 'running' }), undefined);
  assert.is(valueOf(s, 'llmgw_replicas_desired', { model: 'llama-8b' }), undefined);
  assert.is(valueOf(s, 'llmgw_replicas', { model: 'llama-70b', state: 'running' }), 1);
});

test('a tick on an invalid config keeps the last fleet, says the config is invalid, and counts as a tick', async () => {
  const m = createReconcilerMetrics();
  m.recordTick({ startedAt: T0, finishedAt: T1, result: tickResult(), status: status() });
  m.recordTick({ startedAt: T0, finishedAt: new Date(T1.getTime() + 60_000), result: tickResult({ configInvalid: true, applied: false }), status: null });
  const s = await samplesOf(m);
  assert.is(valueOf(s, 'llmgw_config_valid'), 0);
  assert.is(valueOf(s, 'llmgw_nodes', { state: 'reachable' }), 3);
  assert.is(valueOf(s, 'llmgw_last_tick_timestamp_seconds'), T1.getTime() / 1000 + 60);
});

test('a blocked plan shows as llmgw_plan_blocked 1', async () => {
  const m = createReconcilerMetrics();
  m.recordTick({
    startedAt: T0,
    finishedAt: T1,
    result: tickResult({ blocked: 'stops 3 of 4 running replicas (75%), more than safety.maxStopFraction 50%', applied: false }),
    status: status(),
  });
  assert.is(valueOf(await samplesOf(m), 'llmgw_plan_blocked'), 1);
});

test('the lease gauge is 1 while the lease taken is unexpired, 0 once it ran out or was let go, 1 for good without a remote', async () => {
  let now = T0;
  const m = createReconcilerMetrics({ now: () => now });
  assert.is(valueOf(await samplesOf(m), 'llmgw_lease_held'), 0, 'not held before any tick');
  m.leaseTaken(new Date(T0.getTime() + 600_000));
  assert.is(valueOf(await samplesOf(m), 'llmgw_lease_held'), 1);
  now = new Date(T0.getTime() + 600_001);
  assert.is(valueOf(await samplesOf(m), 'llmgw_lease_held'), 0, 'a lease not renewed in time is not held');
  m.leaseTaken(undefined);
  now = new Date(T0.getTime() + 10 * 86_400_000);
  assert.is(valueOf(await samplesOf(m), 'llmgw_lease_held'), 1);
  m.leaseReleased();
  assert.is(valueOf(await samplesOf(m), 'llmgw_lease_held'), 0);
});

test('two instances keep separate registries', async () => {
  const a = createReconcilerMetrics();
  const b = createReconcilerMetrics();
  a.recordTick({ startedAt: T0, finishedAt: T1, result: tickResult(), status: status() });
  assert.is(valueOf(await samplesOf(a), 'llmgw_tick_duration_seconds_count'), 1);
  assert.is(valueOf(await samplesOf(b), 'llmgw_tick_duration_seconds_count'), 0);
});

test('promtool check metrics passes on the exposition, every metric with its help', async () => {
  const m = createReconcilerMetrics();
  m.leaseTaken(undefined);
  m.recordTick({ startedAt: T0, finishedAt: T1, result: tickResult(), status: status() });
  const text = await m.registry.metrics();
  assert.equal(promtoolCheck(text), { status: 0, output: '' });
  for (const name of [
    'llmgw_tick_duration_seconds',
    'llmgw_last_tick_timestamp_seconds',
    'llmgw_nodes',
    'llmgw_gpus',
    'llmgw_replicas',
    'llmgw_actions_total',
    'llmgw_apply_failures_total',
    'llmgw_lease_held',
  ]) {
    assert.match(text, new RegExp(`^# HELP ${name} \\S`, 'm'));
  }
});

test.run();
