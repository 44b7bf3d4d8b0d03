import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { startStubEngine, stubEngineCommand } from '../../src/sim/stub-engine.js';
import { WRONG_ANSWER } from '../../src/sim/stub-answer.js';
import { PrefixCache } from '../../src/sim/stub-cache.js';
import { freePort, waitFor } from './helpers.js';

async function get(url: string): Promise<{ status: number; body: string }> {
  const res = await fetch(url);
  return { status: res.status, body: await res.text() };
}

async function post(url: string, body: unknown, method = 'POST'): Promise<{ status: number; body: string; type: string | null }> {
  const res = await fetch(url, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.text(), type: res.headers.get('content-type') };
}

test('health is 503 until --ready-after has passed, then 200', async () => {
  const started = Date.now();
  const engine = await startStubEngine({ model: 'm', readyAfter: 2 });
  try {
    const base = `http://127.0.0.1:${engine.port}`;
    assert.is((await get(`${base}/health`)).status, 503);
    assert.is((await post(`${base}/v1/chat/completions`, { messages: [] })).status, 503);
    assert.ok(await waitFor(async () => (await get(`${base}/health`)).status === 200));
    assert.ok(Date.now() - started >= 2000, 'not before --ready-after');
  } finally {
    await engine.close();
  }
});

test('it serves the OpenAI-shaped models list, chat and text completions', async () => {
  const engine = await startStubEngine({ model: 'llama-3.1-70b' });
  try {
    const base = `http://127.0.0.1:${engine.port}`;
    const models = JSON.parse((await get(`${base}/v1/models`)).body);
    assert.equal(
      models.data.map((m: { id: string }) => m.id),
      ['llama-3.1-70b'],
    );
    const chat = JSON.parse((await post(`${base}/v1/chat/completions`, { model: 'llama-3.1-70b', messages: [{ role: 'user', content: 'hi' }] })).body);
    assert.is(chat.object, 'chat.completion');
    assert.is(chat.choices[0].message.content, 'Hello from the llmgw stub engine.');
    const text = JSON.parse((await post(`${base}/v1/completions`, { model: 'llama-3.1-70b', prompt: 'hi' })).body);
    assert.is(text.choices[0].text, 'Hello from the llmgw stub engine.');
    assert.is((await get(`${base}/nope`)).status, 404);
  } finally {
    await engine.close();
  }
});

test('"stream": true answers with SSE data chunks ending in [DONE]', async () => {
  const engine = await startStubEngine({ model: 'm' });
  try {
    const res = await post(`http://127.0.0.1:${engine.port}/v1/chat/completions`, { model: 'm', stream: true, messages: [] });
    assert.is(res.type, 'text/event-stream');
    const events = res.body.split('\n\n').filter(Boolean);
    assert.is(events.at(-1), 'data: [DONE]');
    const text = events
      .slice(0, -1)
      .map((e) => JSON.parse(e.slice('data: '.length)).choices[0].delta.content)
      .join('');
    assert.is(text, 'Hello from the llmgw stub engine.');
  } finally {
    await engine.close();
  }
});

test('run as a process, it serves on --host/--port, ignores engine options it does not know, and exits 0 on SIGTERM', async () => {
  const port = await freePort();
  const [node, script] = stubEngineCommand() as [string, string];
  const child = spawn(node, [script, '--host', '127.0.0.1', '--port', String(port), '--model', 'x', '--tensor-parallel-size', '4'], { stdio: 'ignore' });
  try {
    assert.ok(await waitFor(async () => (await get(`http://127.0.0.1:${port}/health`).catch(() => ({ status: 0 }))).status === 200));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    assert.is(await exited, 0);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
});

const ask = (prompt: string, extra: Record<string, unknown> = {}) => ({
  model: 'm',
  messages: [{ role: 'user', content: prompt }],
  max_tokens: 32,
  temperature: 0,
  ...extra,
});

test('asked to reply with a word, it replies that word (the answer check passes); --wrong answers something else', async () => {
  const engine = await startStubEngine({ model: 'm' });
  try {
    const base = `http://127.0.0.1:${engine.port}`;
    const good = JSON.parse((await post(`${base}/v1/chat/completions`, ask('Reply with the word ready.'))).body);
    assert.is(good.choices[0].message.content, 'ready');
    engine.knobs.wrong = true;
    const bad = JSON.parse((await post(`${base}/v1/chat/completions`, ask('Reply with the word ready.'))).body);
    assert.is(bad.choices[0].message.content, WRONG_ANSWER);
    assert.not.match(WRONG_ANSWER, /ready/i);
  } finally {
    await engine.close();
  }
});

test('a streamed answer with a token delay arrives as one SSE event per token, role first, ending in [DONE]', async () => {
  const engine = await startStubEngine({ model: 'm', answer: 'one two three four', tokenDelayMs: 20 });
  try {
    const res = await fetch(`http://127.0.0.1:${engine.port}/v1/chat/completions`, { method: 'POST', body: JSON.stringify(ask('hi', { stream: true })) });
    const reads: string[] = [];
    const reader = res.body!.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      reads.push(Buffer.from(value).toString('utf8'));
    }
    const events = reads.join('').split('\n\n').filter(Boolean);
    assert.is(events.at(-1), 'data: [DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.slice('data: '.length)));
    assert.equal(
      chunks.map((c) => c.choices[0].delta.content),
      ['one', ' two', ' three', ' four'],
    );
    assert.is(chunks[0].choices[0].delta.role, 'assistant');
    assert.equal(
      chunks.map((c) => c.choices[0].finish_reason),
      [null, null, null, 'stop'],
    );
    assert.ok(reads.length >= 4, 'the tokens came in separate reads, not one body');
  } finally {
    await engine.close();
  }
});

test('max_tokens cuts the answer to that many tokens', async () => {
  const engine = await startStubEngine({ model: 'm', answer: 'a b c d e f' });
  try {
    const r = JSON.parse((await post(`http://127.0.0.1:${engine.port}/v1/chat/completions`, ask('x', { max_tokens: 2 }))).body);
    assert.is(r.choices[0].message.content, 'a b');
    assert.is(r.usage.completion_tokens, 2);
  } finally {
    await engine.close();
  }
});

test('--fail-rate answers exactly that share with 500 in the OpenAI error shape, spread evenly', async () => {
  const engine = await startStubEngine({ model: 'm', failRate: 0.25 });
  try {
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await post(`http://127.0.0.1:${engine.port}/v1/chat/completions`, ask('x'))).status);
    assert.equal(statuses, [200, 200, 200, 500, 200, 200, 200, 500]);
    const failed = await (async () => {
      for (;;) {
        const r = await post(`http://127.0.0.1:${engine.port}/v1/chat/completions`, ask('x'));
        if (r.status === 500) return JSON.parse(r.body);
      }
    })();
    assert.equal(failed.error.code, 'stub_failure');
    assert.equal(engine.stats().failures, 3);
  } finally {
    await engine.close();
  }
});

test('PUT /stub/config changes the knobs at run time; a wrong type is refused with 400 and changes nothing', async () => {
  const engine = await startStubEngine({ model: 'm' });
  try {
    const base = `http://127.0.0.1:${engine.port}`;
    const put = await post(`${base}/stub/config`, { answer: 'changed', failRate: 0 }, 'PUT');
    assert.is(put.status, 200);
    assert.is(JSON.parse(put.body).answer, 'changed');
    assert.is(JSON.parse((await post(`${base}/v1/chat/completions`, ask('x'))).body).choices[0].message.content, 'changed');
    const bad = await post(`${base}/stub/config`, { answer: 'not applied', failRate: 2 }, 'PUT');
    assert.is(bad.status, 400);
    assert.is(JSON.parse((await get(`${base}/stub/config`)).body).answer, 'changed');
    const badCache = await post(`${base}/stub/config`, { cache: { nonsense: 1 } }, 'PUT');
    assert.is(badCache.status, 400);
  } finally {
    await engine.close();
  }
});

test('the simulated prefix cache: a repeated prompt is served from cache in whole blocks; another prefix is not', async () => {
  const cache = new PrefixCache({ capacityChars: 10_000, blockChars: 10, baseMs: 0, msPerChar: 0, slots: 1 });
  const system = 's'.repeat(95);
  const first = await cache.prefill(`${system}|turn one`);
  assert.equal([first.promptChars, first.cachedChars], [104, 0]);
  const second = await cache.prefill(`${system}|turn one|answer|turn two`);
  assert.is(second.cachedChars, 100, 'the whole blocks of the earlier prompt');
  const other = await cache.prefill(`x${system}`);
  assert.is(other.cachedChars, 0, 'the same blocks after a different start are a different prefix');
  assert.equal(cache.totals, { prompts: 3, promptChars: 104 + 120 + 96, cachedChars: 100 });
});

test('the simulated cache forgets the least recently used blocks past its capacity', async () => {
  const cache = new PrefixCache({ capacityChars: 40, blockChars: 10, baseMs: 0, msPerChar: 0, slots: 1 });
  await cache.prefill('a'.repeat(40));
  await cache.prefill('b'.repeat(40));
  assert.is((await cache.prefill('a'.repeat(40))).cachedChars, 0, 'a was pushed out by b');
  assert.is((await cache.prefill('a'.repeat(40))).cachedChars, 40);
  const zero = new PrefixCache({ capacityChars: 0, blockChars: 10, baseMs: 0, msPerChar: 0, slots: 1 });
  await zero.prefill('a'.repeat(40));
  assert.is((await zero.prefill('a'.repeat(40))).cachedChars, 0, 'capacity 0 caches nothing');
});

test('prefills queue for their slots: with one slot, a second prefill starts only after the first ends', async () => {
  const cache = new PrefixCache({ capacityChars: 0, blockChars: 10, baseMs: 30, msPerChar: 0, slots: 1 });
  const events: string[] = [];
  const one = cache.prefill('one').then(() => events.push('one done'));
  const two = cache.prefill('two').then((r) => events.push(`two done, waited ${r.waitedMs > 0 ? 'some' : 'none'}`));
  await Promise.all([one, two]);
  assert.equal(events, ['one done', 'two done, waited some']);
});

test('run as a process, the knobs are flags: --answer, --fail-rate', async () => {
  const port = await freePort();
  const [node, script] = stubEngineCommand() as [string, string];
  const child = spawn(node, [script, '--port', String(port), '--answer', 'flagged', '--fail-rate', '0.5'], { stdio: 'ignore' });
  try {
    const base = `http://127.0.0.1:${port}`;
    assert.ok(await waitFor(async () => (await get(`${base}/health`).catch(() => ({ status: 0 }))).status === 200));
    const a = await post(`${base}/v1/chat/completions`, ask('x'));
    const b = await post(`${base}/v1/chat/completions`, ask('x'));
    assert.equal([a.status, JSON.parse(a.body).choices[0].message.content, b.status], [200, 'flagged', 500]);
  } finally {
    child.kill('SIGKILL');
  }
});

test.run();
