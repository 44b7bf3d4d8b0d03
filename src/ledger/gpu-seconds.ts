// `llmgw_gpu_seconds_total{model,bucket}` (docs/operations.md#metrics): the ledger's
// buckets counted live, since the process started, from each tick's fleet.
// The same rule as `llmgw report`: the time between two ticks counts at the
// earlier tick's fleet, for at most 25 hours, the rest `unobserved` — so the
// metric and the report of the same span agree. Time after the last tick is
// counted at the next one (a counter only grows by what is known).

import { Counter, type Registry } from 'prom-client';
import { FLEET_BUCKETS, MODEL_BUCKETS, type GpuCounts } from './buckets.js';
import { MAX_SPAN_MS } from './ledger.js';
import { FLEET_ROW } from './render.js';

export interface GpuSecondsMeter {
  /** A tick's fleet at `at`, counted by gpuCounts (src/ledger/buckets.ts). */
  observe(at: Date, counts: GpuCounts): void;
}

export function registerGpuSeconds(registry: Registry): GpuSecondsMeter {
  const counter = new Counter({
    name: 'llmgw_gpu_seconds_total',
    help: 'GPU-seconds by model and bucket since the process started, as llmgw report counts them; the fleet as model "*".',
    labelNames: ['model', 'bucket'],
    registers: [registry],
  });
  for (const b of FLEET_BUCKETS) counter.labels(FLEET_ROW, b).inc(0);
  let last: { ms: number; counts: GpuCounts } | null = null;
  return {
    observe(at, counts) {
      const ms = at.getTime();
      if (last !== null && ms > last.ms) {
        const seen = Math.min(ms - last.ms, MAX_SPAN_MS) / 1000;
        const blind = Math.max(0, ms - last.ms - MAX_SPAN_MS) / 1000;
        for (const b of FLEET_BUCKETS) if (last.counts.fleet[b] > 0) counter.labels(FLEET_ROW, b).inc(last.counts.fleet[b] * seen);
        if (blind > 0 && last.counts.total > 0) counter.labels(FLEET_ROW, 'unobserved').inc(last.counts.total * blind);
        for (const [model, c] of last.counts.models) for (const b of MODEL_BUCKETS) counter.labels(model, b).inc(c[b] * seen);
      }
      // A clock stepped back: keep the later time, so no interval is counted twice.
      if (last === null || ms >= last.ms) last = { ms, counts };
      else last = { ms: last.ms, counts };
    },
  };
}
