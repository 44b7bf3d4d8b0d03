// llmgw_gpu_seconds_total (src/ledger/gpu-seconds.ts): each tick's fleet counts
// until the next tick, for at most 25 h, the rest unobserved — as `llmgw report`.

import { Registry } from 'prom-client';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { emptyFleetCounts, emptyModelCounts, type GpuCounts } from '../../src/ledger/buckets.js';
import { registerGpuSeconds } from '../../src/ledger/gpu-seconds.js';

const T0 = Date.parse('2026-11-20T00:00:00Z');
const at = (s: number) => new Date(T0 + s * 1000);

function counts(serving: number, free: number): GpuCounts {
  return { fleet: { ...emptyFleetCounts(), serving, free }, models: new Map([['m', { ...emptyModelCounts(), serving }]]), total: serving + free };
}

async function values(registry: Registry): Promise<Record<string, number>> {
  const m = (await registry.getSingleMetric('llmgw_gpu_seconds_total')!.get()).values;
  return Object.fromEntries(m.filter((v) => v.value !== 0).map((v) => [`${String(v.labels.model)}/${String(v.labels.bucket)}`, v.value]));
}

test('each interval counts at the earlier tick: 2 GPUs serving for 60 s, then 1 for 30 s', async () => {
  const registry = new Registry();
  const meter = registerGpuSeconds(registry);
  meter.observe(at(0), counts(2, 1));
  meter.observe(at(60), counts(1, 2));
  meter.observe(at(90), counts(1, 2));
  assert.equal(await values(registry), { '*/serving': 150, '*/free': 120, 'm/serving': 150 });
});

test('a gap past 25 h: 25 h at the earlier tick, the rest unobserved at its GPUs', async () => {
  const registry = new Registry();
  const meter = registerGpuSeconds(registry);
  meter.observe(at(0), counts(1, 0));
  meter.observe(at(26 * 3600), counts(1, 0));
  assert.equal(await values(registry), { '*/serving': 25 * 3600, '*/unobserved': 3600, 'm/serving': 25 * 3600 });
});

test('the first tick counts nothing yet, and a clock stepped back counts no interval twice', async () => {
  const registry = new Registry();
  const meter = registerGpuSeconds(registry);
  meter.observe(at(100), counts(1, 0));
  assert.equal(await values(registry), {});
  meter.observe(at(50), counts(1, 0));
  meter.observe(at(110), counts(1, 0));
  assert.equal(await values(registry), { '*/serving': 10, 'm/serving': 10 });
});

test.run();
