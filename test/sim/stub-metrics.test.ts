// The stub engine's /metrics (vLLM's exact text) and its two slow modes
// (docs/simulation.md): a stall that /health does not see, and a slow prefill that
// keeps progressing. Asserted on the order of events, never on elapsed time.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseMetrics } from '../../src/agent/engine-load.js';
import { startStubEngine, type StubEngine } from '../../src/sim/stub-engine.js';
import { waitFor } from '../agent/helpers.js';

const NAMES = ['vllm:num_requests_running', 'vllm:num_requests_waiting', 'vllm:generation_tokens_total'];

async function metrics(engine: StubEngine): Promise<Record<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${engine.port}/metrics`)).text();
  return Object.fromEntries(parseMetrics(text, NAMES));
}

/** A streamed chat completion whose chunks are counted as they arrive; abort() leaves. */
function stream(engine: StubEngine, maxTokens: number) {
  const ctl = new AbortController();
  const seen = { chunks: 0, done: false };
  const finished = fetch(`http://127.0.0.1:${engine.port}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'm', stream: true, max_tokens: maxTokens, messages: [{ role: 'user', content: 'hi' }] }),
    signal: ctl.signal,
  })
    .then(async (res) => {
      const dec = new TextDecoder();
      for await (const part of res.body as unknown as AsyncIterable<Uint8Array>) {
        const text = dec.decode(part);
        seen.chunks += (text.match(/"delta"/g) ?? []).length;
        if (text.includes('[DONE]')) seen.done = true;
      }
    })
    .catch(() => undefined);
  return { seen, finished, abort: () => ctl.abort() };
}

test("/metrics is vLLM's Prometheus text: HELP and TYPE lines, model_name labels, float values, the counter's _created twin", async () => {
  const engine = await startStubEngine({ model: 'meta-llama/Llama-3.1-8B-Instruct' });
  try {
    const res = await fetch(`http://127.0.0.1:${engine.port}/metrics`);
    assert.is(res.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
    const lines = (await res.text()).split('\n');
    const l = '{engine="0",model_name="meta-llama/Llama-3.1-8B-Instruct"}';
    for (const want of [
      '# TYPE vllm:num_requests_running gauge',
      `vllm:num_requests_running${l} 0.0`,
      '# TYPE vllm:num_requests_waiting gauge',
      `vllm:num_requests_waiting${l} 0.0`,
      '# TYPE vllm:generation_tokens_total counter',
      `vllm:generation_tokens_total${l} 0.0`,
      '# TYPE vllm:kv_cache_usage_perc gauge',
      `vllm:kv_cache_usage_perc${l} 0.0`,
    ]) {
      assert.ok(lines.includes(want), want);
    }
    assert.ok(lines.some((x) => x.startsWith(`vllm:generation_tokens_created${l} `)));
  } finally {
    await engine.close();
  }
});

test('generation tokens count every token sent; a finished request is no longer running', async () => {
  const engine = await startStubEngine({ model: 'm' });
  try {
    const s = stream(engine, 4);
    await s.finished;
    assert.is(s.seen.chunks, 4);
    assert.equal(await metrics(engine), { 'vllm:num_requests_running': 0, 'vllm:num_requests_waiting': 0, 'vllm:generation_tokens_total': 4 });
  } finally {
    await engine.close();
  }
});

test('--stall-after-tokens: after N tokens no request gets another, it stays running, and /health still says 200', async () => {
  const engine = await startStubEngine({ model: 'm', stallAfterTokens: 3 });
  try {
    const s = stream(engine, 10);
    assert.ok(await waitFor(async () => s.seen.chunks === 3 && (await metrics(engine))['vllm:num_requests_running'] === 1));
    assert.is((await fetch(`http://127.0.0.1:${engine.port}/health`)).status, 200);
    // A second request is stuck at once: the engine as a whole has stopped.
    const t = stream(engine, 10);
    assert.ok(await waitFor(async () => (await metrics(engine))['vllm:num_requests_running'] === 2));
    assert.equal([s.seen.chunks, t.seen.chunks, (await metrics(engine))['vllm:generation_tokens_total']], [3, 0, 3]);
    s.abort();
    t.abort();
    await Promise.all([s.finished, t.finished]);
    assert.ok(await waitFor(async () => (await metrics(engine))['vllm:num_requests_running'] === 0), 'a client that leaves is not running');
    assert.is(s.seen.done, false);
  } finally {
    await engine.close();
  }
});

test('--slow-prefill: the first token and each after it come one interval apart, and the counter grows by one each time', async () => {
  const engine = await startStubEngine({ model: 'm', slowPrefillMs: 150 });
  try {
    const s = stream(engine, 3);
    const progress: number[] = [];
    // Each token is seen in the counter before the next one is made: slow, but progressing.
    for (let n = 1; n <= 3; n++) {
      assert.ok(await waitFor(async () => (await metrics(engine))['vllm:generation_tokens_total'] === n, 20_000), `token ${n}`);
      progress.push((await metrics(engine))['vllm:generation_tokens_total'] as number);
    }
    await s.finished;
    assert.equal(progress, [1, 2, 3]);
    assert.equal([s.seen.chunks, s.seen.done], [3, true]);
  } finally {
    await engine.close();
  }
});

test('the slow modes are knobs too (PUT /stub/config), and a wrong type changes nothing', async () => {
  const engine = await startStubEngine({ model: 'm' });
  try {
    const put = (body: unknown) =>
      fetch(`http://127.0.0.1:${engine.port}/stub/config`, { method: 'PUT', body: JSON.stringify(body) }).then(async (r) => ({
        status: r.status,
        body: await r.json(),
      }));
    assert.equal((await put({ stallAfterTokens: 'x' })).status, 400);
    const ok = await put({ stallAfterTokens: 5, slowPrefillMs: 1000 });
    assert.equal([ok.status, ok.body.stallAfterTokens, ok.body.slowPrefillMs], [200, 5, 1000]);
    assert.equal((await put({ stallAfterTokens: null, slowPrefillMs: null })).body.stallAfterTokens, null);
  } finally {
    await engine.close();
  }
});

test.run();
