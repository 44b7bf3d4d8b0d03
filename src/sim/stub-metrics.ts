// The stub engine's GET /metrics, in vLLM's exact Prometheus text (vLLM V1's
// names, HELP lines and labels; prometheus_client prints every value as a float
// and a counter with its `_created` twin), so the agent's parser is tested on
// what a real engine sends, not on a simplification of it.

/** What the stub counts while it serves; the engine updates it as tokens go out. */
export interface StubLoad {
  /** Requests being generated (past their prefill, tokens going out or stuck). */
  running: number;
  /** Requests accepted but still in the prefill queue. */
  waiting: number;
  /** Tokens sent since the engine started. */
  generationTokens: number;
  /** When the engine started, for the counter's `_created` sample (seconds since the epoch). */
  createdSeconds: number;
}

function float(n: number): string {
  return Number.isInteger(n) ? `${n}.0` : String(n);
}

function labels(model: string): string {
  return `{engine="0",model_name=${JSON.stringify(model)}}`;
}

/** A rough KV-cache fill: vLLM's gauge is 0–1; the stub says how many of a notional 256 sequences are in flight. */
function kvUsage(load: StubLoad): number {
  return Math.min(1, (load.running + load.waiting) / 256);
}

export function metricsText(model: string, load: StubLoad): string {
  const l = labels(model);
  return [
    '# HELP vllm:num_requests_running Number of requests in model execution batches.',
    '# TYPE vllm:num_requests_running gauge',
    `vllm:num_requests_running${l} ${float(load.running)}`,
    '# HELP vllm:num_requests_waiting Number of requests waiting to be processed.',
    '# TYPE vllm:num_requests_waiting gauge',
    `vllm:num_requests_waiting${l} ${float(load.waiting)}`,
    '# HELP vllm:kv_cache_usage_perc KV-cache usage. 1 means 100 percent usage.',
    '# TYPE vllm:kv_cache_usage_perc gauge',
    `vllm:kv_cache_usage_perc${l} ${float(kvUsage(load))}`,
    '# HELP vllm:generation_tokens_total Number of generation tokens processed.',
    '# TYPE vllm:generation_tokens_total counter',
    `vllm:generation_tokens_total${l} ${float(load.generationTokens)}`,
    `vllm:generation_tokens_created${l} ${float(load.createdSeconds)}`,
    '',
  ].join('\n');
}
