// A stub inference engine for the demo, end-to-end tests and benchmarks: a real
// process the agent starts like vLLM, answering what llmgw and the router need:
//   GET  /health               503 until --ready-after seconds have passed, then 200
//   GET  /metrics              vLLM's Prometheus text: requests running and waiting, generation tokens, KV-cache use
//   GET  /v1/models            the one model it serves
//   POST /v1/chat/completions  an OpenAI-shaped answer ("stream": true gives SSE chunks)
//   POST /v1/completions       likewise
//   POST /v1/responses         the same answer in the Responses API's shapes (stub-responses.ts)
//   GET  /stub/config, PUT /stub/config   the knobs below, read or changed at run time (JSON)
//   GET  /stub/stats           requests, failures, and the simulated cache's totals
//
//   node dist/src/sim/stub-engine.js --host H --port P [--model NAME] [--ready-after SECONDS]
//     [--answer TEXT] [--wrong] [--token-delay-ms MS] [--fail-rate F]
//     [--stall-after-tokens N] [--slow-prefill [--slow-interval-ms MS]]
//     [--cache-chars N] [--cache-block-chars N] [--prefill-base-ms MS] [--prefill-ms-per-char MS] [--prefill-slots N]
//
// Time to first token comes from a SIMULATED prefix cache (stub-cache.ts), off
// unless its costs are set. Unknown options (an engine template's
// --tensor-parallel-size …) are ignored. SIGTERM and SIGINT close the server and exit 0.
//
// Two ways of being slow, for liveness (docs/simulation.md): --stall-after-tokens
// is an engine that hangs while /health says 200 (after N tokens in all, no
// request gets another token, and they stay running); --slow-prefill is one that
// is slow but alive (the first token and every chunk after it come
// --slow-interval-ms apart, just under the 60 s stallAfter by default).

import { answerResponses } from './stub-responses.js';
import { realpathSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { answerFor, promptText, tokensOf } from './stub-answer.js';
import { PrefixCache, type CacheModel } from './stub-cache.js';
import { metricsText, type StubLoad } from './stub-metrics.js';

/** What can be changed while it runs (PUT /stub/config). */
export interface StubKnobs {
  /** Fixed content of every answer; null = the default (see stub-answer.ts). */
  answer: string | null;
  /** Answer every prompt with the same wrong text. */
  wrong: boolean;
  /** Delay before each token after the first (and per token of a non-streamed answer). */
  tokenDelayMs: number;
  /** Fraction of completions answered 500, spread evenly (0.2: the 5th, 10th, … request). */
  failRate: number;
  /** After this many generation tokens in all, no request gets another (health stays 200); null: never. */
  stallAfterTokens: number | null;
  /** Slow but progressing: the first token and each chunk after it this far apart; null: off. */
  slowPrefillMs: number | null;
  cache: CacheModel;
}

export interface StubEngineOptions extends Partial<Omit<StubKnobs, 'cache'>> {
  host?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  model?: string;
  /** Seconds before /health answers 200. */
  readyAfter?: number;
  cache?: Partial<CacheModel>;
}

export interface StubEngine {
  port: number;
  knobs: StubKnobs;
  stats(): StubStats;
  close(): Promise<void>;
}

export interface StubStats {
  requests: number;
  failures: number;
  cache: { prompts: number; promptChars: number; cachedChars: number };
}

/** --slow-prefill's default interval: just under the 60 s stallAfter an engine is judged by. */
export const SLOW_INTERVAL_MS = 54_000;

export const DEFAULT_CACHE: CacheModel = { capacityChars: 0, blockChars: 64, baseMs: 0, msPerChar: 0, slots: 1 };

/** argv that runs the stub engine as its own process: prepend it to the engine's options. */
export function stubEngineCommand(): string[] {
  return [process.execPath, fileURLToPath(import.meta.url)];
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const sleep = (ms: number): Promise<void> => (ms > 0 ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve());

export async function startStubEngine(opts: StubEngineOptions = {}): Promise<StubEngine> {
  const model = opts.model ?? 'stub-model';
  const readyAt = Date.now() + (opts.readyAfter ?? 0) * 1000;
  const knobs: StubKnobs = {
    answer: opts.answer ?? null,
    wrong: opts.wrong ?? false,
    tokenDelayMs: opts.tokenDelayMs ?? 0,
    failRate: opts.failRate ?? 0,
    stallAfterTokens: opts.stallAfterTokens ?? null,
    slowPrefillMs: opts.slowPrefillMs ?? null,
    cache: { ...DEFAULT_CACHE, ...opts.cache },
  };
  const cache = new PrefixCache(knobs.cache);
  const counts = { requests: 0, failures: 0 };
  const load = { inflight: 0, generationTokens: 0, createdSeconds: Date.now() / 1000 };
  const loadNow = (): StubLoad => ({
    running: load.inflight - cache.queued,
    waiting: cache.queued,
    generationTokens: load.generationTokens,
    createdSeconds: load.createdSeconds,
  });

  /**
   * The tokens of one answer, paced: the prefill, then one by one. `send` gets
   * each as it is made; false when the client left first. A stalled engine
   * never makes the next token: it holds the request until the client leaves.
   */
  async function generate(prompt: string, tokens: string[], res: ServerResponse, send: (t: string, i: number) => void): Promise<boolean> {
    const left = new Promise<void>((r) => res.once('close', () => r()));
    await cache.prefill(prompt);
    for (const [i, t] of tokens.entries()) {
      const pause = knobs.slowPrefillMs ?? (i > 0 ? knobs.tokenDelayMs : 0);
      await sleep(pause);
      if (res.destroyed) return false; // the client left: stop generating
      if (knobs.stallAfterTokens !== null && load.generationTokens >= knobs.stallAfterTokens) {
        await left;
        return false;
      }
      load.generationTokens++;
      send(t, i);
    }
    return true;
  }

  async function complete(path: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readJson(req);
    if (Date.now() < readyAt) {
      json(res, 503, { error: { message: 'model is loading', type: 'unavailable' } });
      return;
    }
    const k = ++counts.requests;
    if (Math.floor(k * knobs.failRate) > Math.floor((k - 1) * knobs.failRate)) {
      counts.failures++;
      json(res, 500, { error: { message: 'simulated failure (--fail-rate)', type: 'server_error', param: null, code: 'stub_failure' } });
      return;
    }
    const chat = path === '/v1/chat/completions';
    const name = typeof body['model'] === 'string' ? body['model'] : model;
    const maxTokens = typeof body['max_tokens'] === 'number' ? body['max_tokens'] : null;
    const tokens = tokensOf(answerFor(body, knobs), maxTokens);
    const prompt = promptText(body);
    const id = `stub-${Date.now().toString(36)}-${k}`;
    const created = Math.floor(Date.now() / 1000);
    const usage = { prompt_tokens: Math.ceil(prompt.length / 4), completion_tokens: tokens.length, total_tokens: Math.ceil(prompt.length / 4) + tokens.length };
    load.inflight++;
    let done = false;
    const finish = (): void => {
      if (!done) load.inflight--;
      done = true;
    };
    res.once('close', finish);
    try {
      if (path === '/v1/responses') {
        await answerResponses(
          res,
          { id, model: name, createdAt: created, tokens, inputTokens: usage.prompt_tokens, tokenDelayMs: knobs.tokenDelayMs },
          body['stream'] === true,
          sleep,
        );
        return;
      }
      if (body['stream'] !== true) {
        if (!(await generate(prompt, tokens, res, () => undefined))) return;
        const text = tokens.join('');
        const choice = chat ? { index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' } : { index: 0, text, finish_reason: 'stop' };
        json(res, 200, { id, object: chat ? 'chat.completion' : 'text_completion', created, model: name, choices: [choice], usage });
        return;
      }
      // The head at once, as an engine's streaming response does; the first token after the prefill.
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.flushHeaders();
      const whole = await generate(prompt, tokens, res, (t, i) => {
        const last = i === tokens.length - 1;
        const choice = chat
          ? { index: 0, delta: i === 0 ? { role: 'assistant', content: t } : { content: t }, finish_reason: last ? 'stop' : null }
          : { index: 0, text: t, finish_reason: last ? 'stop' : null };
        res.write(`data: ${JSON.stringify({ id, object: chat ? 'chat.completion.chunk' : 'text_completion', created, model: name, choices: [choice] })}\n\n`);
      });
      if (whole) res.end('data: [DONE]\n\n');
    } finally {
      finish();
    }
  }

  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === '/health') {
      const ready = Date.now() >= readyAt;
      return json(res, ready ? 200 : 503, { status: ready ? 'ok' : 'loading' });
    }
    if (req.method === 'GET' && path === '/metrics') {
      const text = metricsText(model, loadNow());
      res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8', 'content-length': Buffer.byteLength(text) });
      return void res.end(text);
    }
    if (req.method === 'GET' && path === '/v1/models') {
      return json(res, 200, { object: 'list', data: [{ id: model, object: 'model', created: 0, owned_by: 'llmgw-stub' }] });
    }
    if (req.method === 'POST' && (path === '/v1/chat/completions' || path === '/v1/completions' || path === '/v1/responses')) {
      return void complete(path, req, res).catch(() => res.destroy());
    }
    if (path === '/stub/config' && req.method === 'GET') return json(res, 200, knobs);
    if (path === '/stub/config' && req.method === 'PUT') {
      return void readJson(req).then((change) => {
        const problem = applyKnobs(knobs, change);
        json(res, problem ? 400 : 200, problem ? { error: problem } : knobs);
      });
    }
    if (path === '/stub/stats' && req.method === 'GET') return json(res, 200, { ...counts, cache: cache.totals });
    json(res, 404, { error: { message: `no route ${req.method ?? ''} ${path ?? ''}`, type: 'not_found' } });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    knobs,
    stats: () => ({ ...counts, cache: { ...cache.totals } }),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Merge a PUT /stub/config body into the knobs; a message when a value has the wrong type (nothing applied then). */
export function applyKnobs(knobs: StubKnobs, change: Record<string, unknown>): string | null {
  const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;
  const c = (change['cache'] ?? {}) as Record<string, unknown>;
  const checks: [boolean, string][] = [
    [change['answer'] === undefined || change['answer'] === null || typeof change['answer'] === 'string', 'answer: a string or null'],
    [change['wrong'] === undefined || typeof change['wrong'] === 'boolean', 'wrong: true or false'],
    [change['tokenDelayMs'] === undefined || num(change['tokenDelayMs']), 'tokenDelayMs: a number >= 0'],
    [change['failRate'] === undefined || (num(change['failRate']) && change['failRate'] <= 1), 'failRate: a number from 0 to 1'],
    [
      change['stallAfterTokens'] === undefined || change['stallAfterTokens'] === null || num(change['stallAfterTokens']),
      'stallAfterTokens: a number >= 0 or null',
    ],
    [change['slowPrefillMs'] === undefined || change['slowPrefillMs'] === null || num(change['slowPrefillMs']), 'slowPrefillMs: a number >= 0 or null'],
    [
      typeof c === 'object' && Object.keys(c).every((key) => key in DEFAULT_CACHE && num(c[key])),
      'cache: numbers >= 0 for capacityChars, blockChars, baseMs, msPerChar, slots',
    ],
  ];
  const wrong = checks.find(([ok]) => !ok);
  if (wrong) return wrong[1];
  if (change['answer'] !== undefined) knobs.answer = change['answer'] as string | null;
  if (change['wrong'] !== undefined) knobs.wrong = change['wrong'] as boolean;
  if (change['tokenDelayMs'] !== undefined) knobs.tokenDelayMs = change['tokenDelayMs'] as number;
  if (change['failRate'] !== undefined) knobs.failRate = change['failRate'] as number;
  if (change['stallAfterTokens'] !== undefined) knobs.stallAfterTokens = change['stallAfterTokens'] as number | null;
  if (change['slowPrefillMs'] !== undefined) knobs.slowPrefillMs = change['slowPrefillMs'] as number | null;
  Object.assign(knobs.cache, c);
  return null;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '8000' },
      model: { type: 'string', default: 'stub-model' },
      'ready-after': { type: 'string', default: '0' },
      answer: { type: 'string' },
      wrong: { type: 'boolean', default: false },
      'token-delay-ms': { type: 'string', default: '0' },
      'fail-rate': { type: 'string', default: '0' },
      'stall-after-tokens': { type: 'string' },
      'slow-prefill': { type: 'boolean', default: false },
      'slow-interval-ms': { type: 'string' },
      'cache-chars': { type: 'string' },
      'cache-block-chars': { type: 'string' },
      'prefill-base-ms': { type: 'string' },
      'prefill-ms-per-char': { type: 'string' },
      'prefill-slots': { type: 'string' },
    },
    strict: false,
    allowPositionals: true,
  });
  const n = (v: unknown, fallback: number): number => {
    const x = Number(v);
    return v === undefined || !Number.isFinite(x) || x < 0 ? fallback : x;
  };
  const engine = await startStubEngine({
    host: String(values.host),
    port: Number(values.port),
    model: String(values.model),
    readyAfter: n(values['ready-after'], 0),
    answer: typeof values.answer === 'string' ? values.answer : null,
    wrong: values.wrong === true,
    tokenDelayMs: n(values['token-delay-ms'], 0),
    failRate: Math.min(1, n(values['fail-rate'], 0)),
    stallAfterTokens: values['stall-after-tokens'] === undefined ? null : n(values['stall-after-tokens'], 0),
    slowPrefillMs: values['slow-prefill'] === true ? n(values['slow-interval-ms'], SLOW_INTERVAL_MS) : null,
    cache: {
      capacityChars: n(values['cache-chars'], DEFAULT_CACHE.capacityChars),
      blockChars: Math.max(1, n(values['cache-block-chars'], DEFAULT_CACHE.blockChars)),
      baseMs: n(values['prefill-base-ms'], DEFAULT_CACHE.baseMs),
      msPerChar: n(values['prefill-ms-per-char'], DEFAULT_CACHE.msPerChar),
      slots: Math.max(1, n(values['prefill-slots'], DEFAULT_CACHE.slots)),
    },
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
