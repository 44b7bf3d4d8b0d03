// Reading an engine's Prometheus page and judging a stall (docs/protocol.md#engine-progress),
// on pages in the exact shape vLLM V1 and SGLang serve.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { judgeLoad, parseMetrics, sampleOf, type LoadRecord } from '../../src/agent/engine-load.js';
import type { EngineMetricsEntry } from '../../src/types/snapshot.js';

const VLLM: EngineMetricsEntry = {
  path: '/metrics',
  running: 'vllm:num_requests_running',
  waiting: 'vllm:num_requests_waiting',
  progress: 'vllm:generation_tokens_total',
};
const M = 'model_name="meta-llama/Llama-3.1-8B-Instruct"';

/** As vLLM 0.11 (V1 engine, data parallel 2) serves it: floats, HELP/TYPE lines, `_created` twins, histograms. */
const VLLM_PAGE = `# HELP python_gc_objects_collected_total Objects collected during gc
# TYPE python_gc_objects_collected_total counter
python_gc_objects_collected_total{generation="0"} 12345.0
# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",${M}} 3.0
vllm:num_requests_running{engine="1",${M}} 2.0
# HELP vllm:num_requests_waiting Number of requests waiting to be processed.
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{engine="0",${M}} 1.0
vllm:num_requests_waiting{engine="1",${M}} 0.0
# HELP vllm:kv_cache_usage_perc KV-cache usage. 1 means 100 percent usage.
# TYPE vllm:kv_cache_usage_perc gauge
vllm:kv_cache_usage_perc{engine="0",${M}} 0.0123
# HELP vllm:generation_tokens_total Number of generation tokens processed.
# TYPE vllm:generation_tokens_total counter
vllm:generation_tokens_total{engine="0",${M}} 48213.0
vllm:generation_tokens_total{engine="1",${M}} 1787.0
# HELP vllm:generation_tokens_created Number of generation tokens processed.
# TYPE vllm:generation_tokens_created gauge
vllm:generation_tokens_created{engine="0",${M}} 1.7331e+09
# HELP vllm:time_to_first_token_seconds Histogram of time to first token in seconds.
# TYPE vllm:time_to_first_token_seconds histogram
vllm:time_to_first_token_seconds_bucket{engine="0",le="0.001",${M}} 0.0
vllm:time_to_first_token_seconds_bucket{engine="0",le="+Inf",${M}} 212.0
vllm:time_to_first_token_seconds_count{engine="0",${M}} 212.0
vllm:time_to_first_token_seconds_sum{engine="0",${M}} 31.25
`;

test('a vLLM page: each series summed over its engines; _created, histograms and other names left out', () => {
  assert.equal(sampleOf(VLLM_PAGE, VLLM), { sample: { running: 5, waiting: 1, progress: 50000 } });
});

test("SGLang's names, given as settings, read the same way", () => {
  const page = [
    '# HELP sglang:num_running_reqs The number of running requests.',
    '# TYPE sglang:num_running_reqs gauge',
    'sglang:num_running_reqs{model_name="Qwen/Qwen2.5-7B-Instruct"} 2.0',
    'sglang:num_queue_reqs{model_name="Qwen/Qwen2.5-7B-Instruct"} 7.0',
    'sglang:generation_tokens_total{model_name="Qwen/Qwen2.5-7B-Instruct"} 901.0',
  ].join('\n');
  const entry = { path: '/metrics', running: 'sglang:num_running_reqs', waiting: 'sglang:num_queue_reqs', progress: 'sglang:generation_tokens_total' };
  assert.equal(sampleOf(page, entry), { sample: { running: 2, waiting: 7, progress: 901 } });
});

test('label values holding braces, spaces and escaped quotes do not break a line; NaN, +Inf and garbage values are skipped', () => {
  const page = [
    'vllm:num_requests_running{model_name="a } b \\"c\\" {d"} 4.0 1733100000000',
    'vllm:num_requests_running{model_name="x"} NaN',
    'vllm:num_requests_running{model_name="y"} +Inf',
    'vllm:num_requests_running{model_name="z"} lots',
    'vllm:num_requests_running{model_name="unterminated} 9.0',
    'vllm:num_requests_running 1',
  ].join('\r\n');
  assert.equal([...parseMetrics(page, ['vllm:num_requests_running'])], [['vllm:num_requests_running', 5]]);
});

test('a page without a named series says which names it lacks (an SGLang engine read with vLLM names)', () => {
  assert.equal(sampleOf('sglang:num_running_reqs 2.0\nvllm:num_requests_running 1.0\n', VLLM), {
    missing: ['vllm:num_requests_waiting', 'vllm:generation_tokens_total'],
  });
});

const P = { pid: 100, pidStartTime: '555' };
const at = (s: number): Date => new Date(Date.UTC(2026, 11, 1, 8, 0, s));
const sample = (running: number, progress: number) => ({ running, waiting: 0, progress });

/** Runs reports at the given seconds with the given samples, keeping the record as the state directory would. */
function run(steps: [number, ReturnType<typeof sample>][], stallAfterMs = 60_000) {
  let rec: LoadRecord | null = null;
  return steps.map(([s, smp]) => {
    const judged = judgeLoad(rec, P, smp, at(s), stallAfterMs);
    rec = judged.record;
    return judged.load.stalledSince ?? null;
  });
}

test('running with a growing counter is never stalled, however slowly it grows (slow prefill: a token every 54 s)', () => {
  assert.equal(
    run([
      [0, sample(1, 10)],
      [54, sample(1, 11)],
      [108, sample(1, 12)],
      [162, sample(1, 13)],
    ]),
    [null, null, null, null],
  );
});

test('running and the counter still for stallAfter is stalled since the last move + stallAfter, the same time in every report', () => {
  assert.equal(
    run([
      [0, sample(2, 500)],
      [30, sample(2, 500)],
      [59, sample(2, 500)],
      [60, sample(2, 500)],
      [90, sample(2, 500)],
    ]),
    [null, null, null, '2026-12-01T08:01:00.000Z', '2026-12-01T08:01:00.000Z'],
  );
});

test('a stall ends when the counter moves again or nothing runs; an idle engine (running 0) is never stalled', () => {
  assert.equal(
    run([
      [0, sample(1, 7)],
      [70, sample(1, 7)],
      [80, sample(1, 8)],
      [200, sample(1, 8)],
      [210, sample(0, 8)],
      [400, sample(0, 8)],
    ]),
    [null, '2026-12-01T08:01:00.000Z', null, '2026-12-01T08:02:20.000Z', null, null],
  );
});

test('a restarted engine (another pid) starts the stall clock afresh, even with an unchanged counter', () => {
  const first = judgeLoad(null, P, sample(1, 0), at(0), 60_000);
  const again = judgeLoad(first.record, { pid: 101, pidStartTime: '777' }, sample(1, 0), at(120), 60_000);
  assert.equal(again.load, { running: 1, waiting: 0, progress: 0 });
  assert.is(again.record.movedAt, at(120).toISOString());
});

test('stallAfter comes from the start request: 5 s stalls after 5 s', () => {
  assert.equal(
    run(
      [
        [0, sample(1, 3)],
        [4, sample(1, 3)],
        [5, sample(1, 3)],
      ],
      5_000,
    ),
    [null, null, '2026-12-01T08:00:05.000Z'],
  );
});

test.run();
