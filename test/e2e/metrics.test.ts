// The reconciler's metrics against a simulated fleet (src/demo/sim-world.ts:
// SSH servers running the real agent, a router, a git remote): the run loop's
// ticks recorded by the same wrapper `llmgw run --metrics` uses, scraped over
// HTTP before, during and after a tick, and checked against what the tick did.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PassThrough } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Loop } from '../../src/daemon/loop.js';
import { startDaemon } from '../../src/daemon/run-daemon.js';
import type { TickResult } from '../../src/tick/result.js';
import { createLogger } from '../../src/log/logger.js';
import { observeTicks, serveRunMetrics, type RunMetrics } from '../../src/metrics/run-metrics.js';
import { parseExposition, promtoolCheck, scrape, sumOf, valueOf, type Sample } from '../helpers/prometheus.js';
import { modelsYaml } from '../fixtures/config-yaml.js';
import { startE2E, type E2E } from './fleet-world.js';

let e: E2E;
let metrics: RunMetrics;
let loop: Loop;
const results: TickResult[] = [];
const logOut = new PassThrough();
let logText = '';
logOut.on('data', (c) => (logText += c));
let gate: { opened: Promise<void>; open(): void; waiting: boolean } | null = null;

async function samples(): Promise<Sample[]> {
  const r = await scrape(metrics.url);
  assert.is(r.status, 200);
  return parseExposition(r.text);
}

async function untilTicks(n: number): Promise<Sample[]> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const s = await samples();
    if ((valueOf(s, 'llmgw_tick_duration_seconds_count') ?? 0) >= n) return s;
    if (Date.now() > deadline) throw new Error(`no ${n} ticks recorded in 60 s; log:\n${logText}`);
    await sleep(100);
  }
}

test.before(async () => {
  // 'huge' wants 16 GPUs on one node of eight: never placeable.
  e = await startE2E({
    modelsYaml: modelsYaml([
      { name: 'small', replicas: 2 },
      { name: 'big', gpus: 4 },
      { name: 'huge', gpus: 16 },
    ]),
  });
  const logger = createLogger({ format: 'json', stdout: logOut, stderr: logOut, timestamps: true });
  metrics = await serveRunMetrics({ host: '127.0.0.1', port: 0 }, { log: (text) => logger.line(text) });
  loop = startDaemon({
    repo: e.repo,
    schedule: '0 0 1 1 *',
    holder: 'metrics-e2e',
    leaseTtlMs: 600_000,
    now: () => new Date(),
    log: (text) => logger.line(text),
    tick: observeTicks(metrics, logger, async (_reason, leaseExpiresAt) => {
      if (gate) {
        gate.waiting = true;
        await gate.opened;
      }
      const r = await e.tick({ leaseExpiresAt, log: (text) => logger.line(text) });
      results.push(r);
      return r;
    }),
  });
});

test.after(async () => {
  gate?.open();
  await loop.stop();
  await metrics.close();
  await e.close();
});

test('after the first tick the metrics say what it did: its starts, the GPUs they took, the nodes, the lease', async () => {
  const s = await untilTicks(1);
  const r = results[0]!;
  const starts = r.plan!.actions.filter((a) => a.op === 'start');
  assert.is(starts.length, 3, 'small ×2 and big ×1');
  assert.equal([r.outcome!.started, r.outcome!.failed], [3, 0]);
  assert.is(valueOf(s, 'llmgw_actions_total', { op: 'start' }), r.outcome!.started);
  assert.is(valueOf(s, 'llmgw_actions_total', { op: 'stop' }), 0);
  assert.is(valueOf(s, 'llmgw_apply_failures_total'), r.outcome!.failures.length);
  assert.is(valueOf(s, 'llmgw_tick_duration_seconds_count'), 1);
  assert.ok(valueOf(s, 'llmgw_tick_duration_seconds_sum')! > 0);
  assert.is(valueOf(s, 'llmgw_lease_held'), 1);
  assert.is(valueOf(s, 'llmgw_config_valid'), 1);
  assert.is(valueOf(s, 'llmgw_plan_blocked'), 0);
  const last = valueOf(s, 'llmgw_last_tick_timestamp_seconds')!;
  assert.ok(Math.abs(last * 1000 - Date.now()) < 60_000, `last tick at ${last}`);

  assert.is(valueOf(s, 'llmgw_nodes', { state: 'reachable' }), e.world.nodeNames.length);
  for (const state of ['cordoned', 'unreachable', 'lost']) assert.is(valueOf(s, 'llmgw_nodes', { state }), 0, state);
  // The demo's nodes: eight GPUs each, H100 on the first fabric, H200 on the other.
  assert.is(sumOf(s, 'llmgw_gpus'), 8 * e.world.nodeNames.length);
  const taken = starts.reduce((n, a) => n + a.placement.reduce((k, p) => k + p.gpus.length, 0), 0);
  assert.is(taken, 6);
  assert.is(sumOf(s, 'llmgw_gpus', { bucket: 'used' }), taken);
  assert.is(sumOf(s, 'llmgw_gpus', { bucket: 'free' }), 8 * e.world.nodeNames.length - taken);

  // As the tick left them: what it started is starting; what cannot be placed has none.
  for (const [model, n] of [
    ['small', 2],
    ['big', 1],
  ] as const) {
    assert.is(valueOf(s, 'llmgw_replicas', { model, state: 'starting' }), n, model);
    assert.is(valueOf(s, 'llmgw_replicas', { model, state: 'running' }), 0, model);
  }
  assert.equal(
    r.plan!.unplaceable.map((u) => u.model),
    ['huge'],
  );
  assert.is(valueOf(s, 'llmgw_replicas', { model: 'huge', state: 'running' }), 0);
  assert.is(valueOf(s, 'llmgw_replicas_desired', { model: 'huge' }), 1);
});

test("a scrape during a tick answers at once with the last tick's numbers; the tick's own land when it ends", async () => {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((r) => (open = r));
  gate = { opened, open, waiting: false };
  await e.waitRunning(3);
  loop.trigger('schedule');
  const deadline = Date.now() + 30_000;
  while (!gate.waiting) {
    if (Date.now() > deadline) throw new Error('the second tick never started');
    await sleep(20);
  }
  const during = await samples();
  assert.is(valueOf(during, 'llmgw_tick_duration_seconds_count'), 1, 'the tick in flight is not counted yet');
  assert.is(valueOf(during, 'llmgw_replicas', { model: 'small', state: 'starting' }), 2);
  assert.is(valueOf(during, 'llmgw_lease_held'), 1);
  gate.open();
  gate = null;

  const after = await untilTicks(2);
  assert.is(results.length, 2);
  assert.equal(results[1]!.plan!.actions, [], 'nothing more to do');
  assert.is(valueOf(after, 'llmgw_actions_total', { op: 'start' }), 3, 'no new starts');
  for (const [model, n] of [
    ['small', 2],
    ['big', 1],
  ] as const) {
    assert.is(valueOf(after, 'llmgw_replicas', { model, state: 'running' }), n, `${model} now running`);
    assert.is(valueOf(after, 'llmgw_replicas', { model, state: 'starting' }), 0, model);
  }
  assert.ok(valueOf(after, 'llmgw_last_tick_timestamp_seconds')! >= valueOf(during, 'llmgw_last_tick_timestamp_seconds')!);
});

test('promtool check metrics passes on what the server serves, and the content type is Prometheus text', async () => {
  const r = await scrape(metrics.url);
  assert.match(r.contentType, /^text\/plain; version=0\.0\.4/);
  assert.equal(promtoolCheck(r.text), { status: 0, output: '' });
});

test('the metrics server answers /metrics only', async () => {
  const r = await scrape(metrics.url.replace(/\/metrics$/, '/'));
  assert.is(r.status, 404);
});

test("every log line of the run is one JSON object; a tick's lines share its id", () => {
  const lines = logText
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { time: string; level: string; msg: string; tick: string | null });
  assert.ok(lines.length > 0);
  for (const l of lines) assert.equal(Object.keys(l).sort(), ['level', 'msg', 'tick', 'time']);
  const serving = lines.find((l) => l.msg.startsWith('metrics: serving Prometheus metrics on http://127.0.0.1:'));
  assert.is(serving?.tick, null);
  const committed = lines.filter((l) => l.msg.startsWith('committed '));
  assert.ok(committed.length >= 1, logText);
  const ids = new Set(committed.map((l) => l.tick));
  assert.not.ok(ids.has(null));
});

test.run();
