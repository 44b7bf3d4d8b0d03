// llmgw_gpu_seconds_total through the reconciler's metrics (src/metrics): each
// real tick's GPUs (TickResult.gpus, src/tick/run.ts) count from that tick until
// the next one, as `llmgw report` counts commits.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createReconcilerMetrics } from '../../src/metrics/reconciler-metrics.js';
import { modelsYaml } from '../fixtures/config-yaml.js';
import { tickClusterYaml, tickNodes, tickWorld } from '../fixtures/tick-world.js';
import { parseExposition } from '../helpers/prometheus.js';

test('three ticks 10 minutes apart: the first 600 s at the first tick (a replica starting), the next at the second (running)', async () => {
  const world = await tickWorld({ cluster: tickClusterYaml({ nodes: 2 }), models: modelsYaml([{ name: 'm' }]), nodes: tickNodes(2), prefix: 'gpu-seconds' });
  const metrics = createReconcilerMetrics();
  for (const minute of [0, 10, 20]) {
    const result = await world.tick(minute, { notify: false });
    assert.ok(result.gpus, 'the tick reports its GPUs');
    const at = new Date(Date.parse(result.gpus.at));
    metrics.recordTick({ startedAt: at, finishedAt: at, result, status: result.report });
  }
  const text = await metrics.registry.metrics();
  const series = parseExposition(text).filter((s) => s.name === 'llmgw_gpu_seconds_total' && s.value !== 0);
  const got = Object.fromEntries(series.map((s) => [`${s.labels.model ?? ''}/${s.labels.bucket ?? ''}`, s.value]));
  // 16 GPUs: m-0 on one, started by the first tick (starting as it leaves it), running from the second on.
  assert.equal(got, { '*/serving': 600, '*/transit': 600, '*/free': 15 * 1200, 'm/serving': 600, 'm/transit': 600 });
  await world.close();
});

test('every fleet bucket has a series from the start, at 0', async () => {
  const text = await createReconcilerMetrics().registry.metrics();
  const buckets = parseExposition(text)
    .filter((s) => s.name === 'llmgw_gpu_seconds_total')
    .map((s) => `${s.labels.model ?? ''}/${s.labels.bucket ?? ''}=${s.value}`);
  assert.equal(
    buckets,
    ['serving', 'idle', 'transit', 'free', 'unhealthy', 'other', 'unreachable', 'cordoned', 'unobserved'].map((b) => `*/${b}=0`),
  );
});

test.run();
