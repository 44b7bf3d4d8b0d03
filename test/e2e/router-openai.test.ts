// The official openai npm client (v6) against the reference router and the stub
// engine, as a user's code would call it: chat through a LoRA adapter's name
// (routed to its base model's replicas, the name passed on unchanged), and the
// Responses API (`/v1/responses`), each streaming and not.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import OpenAI from 'openai';
import { runRouterClient } from '../../src/router/client.js';
import { startRouter, type RunningRouter } from '../../src/router/server.js';
import { startStubEngine, type StubEngine } from '../../src/sim/stub-engine.js';

const test = suite('router with the openai client');

let dir: string;
let router: RunningRouter;
let stub: StubEngine;
let client: OpenAI;

test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'llmgw-rt-openai-'));
  stub = await startStubEngine({ model: 'qwen-7b', answer: 'Paris is the capital.' });
  const socket = join(dir, 'admin.sock');
  router = await startRouter({ listen: { host: '127.0.0.1', port: 0 }, adminSocket: socket });
  const table = {
    version: 1,
    models: { 'qwen-7b': [{ replica: 'qwen-7b-0', url: `http://127.0.0.1:${stub.port}` }] },
    settings: { 'qwen-7b': { adapters: ['sql-lora'] } },
  };
  const put = await runRouterClient('endpoints', JSON.stringify(table), { LLMGW_ROUTER_SOCKET: socket });
  assert.is(put.code, 0, put.stderr);
  client = new OpenAI({ baseURL: `http://127.0.0.1:${router.port}/v1`, apiKey: 'unused', maxRetries: 0, timeout: 10_000 });
});

test.after(async () => {
  await router.close();
  await stub.close();
  rmSync(dir, { recursive: true, force: true });
});

test('chat through an adapter name reaches the base model and answers as that adapter', async () => {
  const r = await client.chat.completions.create({ model: 'sql-lora', messages: [{ role: 'user', content: 'capital of France?' }] });
  assert.is(r.choices[0]!.message.content, 'Paris is the capital.');
  assert.is(r.model, 'sql-lora', 'the engine was asked for the adapter, by its name');
});

test('a streamed chat through an adapter name arrives whole', async () => {
  const stream = await client.chat.completions.create({ model: 'sql-lora', stream: true, messages: [{ role: 'user', content: 'capital of France?' }] });
  let text = '';
  for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
  assert.is(text, 'Paris is the capital.');
});

test('/v1/responses: a response, and a stream of events ending in response.completed', async () => {
  const r = await client.responses.create({ model: 'qwen-7b', input: 'capital of France?' });
  assert.is(r.output_text, 'Paris is the capital.');
  const stream = await client.responses.create({ model: 'sql-lora', input: 'capital of France?', stream: true });
  let text = '';
  let last = '';
  for await (const event of stream) {
    if (event.type === 'response.output_text.delta') text += event.delta;
    last = event.type;
  }
  assert.is(text, 'Paris is the capital.');
  assert.is(last, 'response.completed');
});

test('/v1/models lists the adapter with its parent', async () => {
  const ids: { id: string; parent?: string }[] = [];
  for await (const m of client.models.list()) ids.push(m);
  assert.equal(
    ids.map((m) => [m.id, m.parent ?? null]),
    [
      ['qwen-7b', null],
      ['sql-lora', 'qwen-7b'],
    ],
  );
});

test.run();
