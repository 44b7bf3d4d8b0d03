// A stub inference engine for the demo and end-to-end tests: a real process the
// agent starts like vLLM, answering what llmgw and the router need:
//   GET  /health               503 until --ready-after seconds have passed, then 200
//   GET  /v1/models            the one model it serves
//   POST /v1/chat/completions  an OpenAI-shaped reply ("stream": true gives SSE chunks)
//   POST /v1/completions       likewise
//
//   node dist/src/sim/stub-engine.js --host H --port P [--model NAME] [--ready-after SECONDS]
//
// Unknown options (an engine template's --tensor-parallel-size …) are ignored.
// SIGTERM and SIGINT close the server and exit 0.

import { realpathSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

export interface StubEngineOptions {
  host?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  model?: string;
  /** Seconds before /health answers 200. */
  readyAfter?: number;
}

export interface StubEngine {
  port: number;
  close(): Promise<void>;
}

/** argv that runs the stub engine as its own process: prepend it to the engine's options. */
export function stubEngineCommand(): string[] {
  return [process.execPath, fileURLToPath(import.meta.url)];
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function completion(model: string, chat: boolean, stream: boolean, res: ServerResponse): void {
  const id = `stub-${Date.now().toString(36)}`;
  const created = Math.floor(Date.now() / 1000);
  const words = ['Hello', ' from', ' the', ' llmgw', ' stub', ' engine.'];
  const object = chat ? 'chat.completion' : 'text_completion';
  if (!stream) {
    const choice = chat
      ? { index: 0, message: { role: 'assistant', content: words.join('') }, finish_reason: 'stop' }
      : { index: 0, text: words.join(''), finish_reason: 'stop' };
    json(res, 200, { id, object, created, model, choices: [choice], usage: { prompt_tokens: 1, completion_tokens: words.length, total_tokens: words.length + 1 } });
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const [i, w] of words.entries()) {
    const last = i === words.length - 1;
    const choice = chat ? { index: 0, delta: { content: w }, finish_reason: last ? 'stop' : null } : { index: 0, text: w, finish_reason: last ? 'stop' : null };
    res.write(`data: ${JSON.stringify({ id, object: chat ? 'chat.completion.chunk' : object, created, model, choices: [choice] })}\n\n`);
  }
  res.end('data: [DONE]\n\n');
}

export async function startStubEngine(opts: StubEngineOptions = {}): Promise<StubEngine> {
  const model = opts.model ?? 'stub-model';
  const readyAt = Date.now() + (opts.readyAfter ?? 0) * 1000;
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === '/health') {
      const ready = Date.now() >= readyAt;
      return json(res, ready ? 200 : 503, { status: ready ? 'ok' : 'loading' });
    }
    if (req.method === 'GET' && path === '/v1/models') {
      return json(res, 200, { object: 'list', data: [{ id: model, object: 'model', created: 0, owned_by: 'llmgw-stub' }] });
    }
    if (req.method === 'POST' && (path === '/v1/chat/completions' || path === '/v1/completions')) {
      void readBody(req).then((body) => {
        if (Date.now() < readyAt) return json(res, 503, { error: { message: 'model is loading', type: 'unavailable' } });
        completion(typeof body.model === 'string' ? body.model : model, path === '/v1/chat/completions', body.stream === true, res);
      });
      return;
    }
    json(res, 404, { error: { message: `no route ${req.method} ${path}`, type: 'not_found' } });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '8000' },
      model: { type: 'string', default: 'stub-model' },
      'ready-after': { type: 'string', default: '0' },
    },
    strict: false,
    allowPositionals: true,
  });
  const engine = await startStubEngine({
    host: String(values.host),
    port: Number(values.port),
    model: String(values.model),
    readyAfter: Number(values['ready-after']) || 0,
  });
  process.stdout.write(`stub engine serving ${String(values.model)} on ${String(values.host)}:${engine.port}\n`);
  const stop = () => void engine.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === realpathSync(process.argv[1])) {
  main().catch((err: unknown) => {
    process.stderr.write(`stub engine: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
