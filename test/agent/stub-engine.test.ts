import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { startStubEngine, stubEngineCommand } from '../../src/sim/stub-engine.js';
import { freePort, waitFor } from './helpers.js';

async function get(url: string): Promise<{ status: number; body: string }> {
  const res = await fetch(url);
  return { status: res.status, body: await res.text() };
}

async function post(url: string, body: unknown): Promise<{ status: number; body: string; type: string | null }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
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
    assert.equal(models.data.map((m: { id: string }) => m.id), ['llama-3.1-70b']);
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
    const text = events.slice(0, -1).map((e) => JSON.parse(e.slice('data: '.length)).choices[0].delta.content).join('');
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

test.run();
