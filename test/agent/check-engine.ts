// A small HTTP engine for the answer-check tests, on 127.0.0.1: /health and
// /v1/chat/completions, each answer set by the test (content, JSON or SSE,
// delays, an HTTP status, or silence). The replica's process is a plain
// `sleep`; its endpoint points here.

import { createServer, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface EngineBehaviour {
  health: number;
  /** choices[0].message.content (or the concatenated deltas, for sse). */
  answer: string;
  mode: 'json' | 'sse' | 'silent' | 'status';
  /** For mode status. */
  status: number;
  /** Delay before each answer… */
  delayMs: number;
  /** …unless this queue has one for the next request. */
  delays: number[];
}

export interface CheckEngine {
  url: string;
  requests: { method: string; path: string; body: unknown }[];
  set(b: Partial<EngineBehaviour>): void;
  close(): Promise<void>;
}

function answerSse(res: ServerResponse, answer: string): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const half = Math.ceil(answer.length / 2);
  for (const piece of [answer.slice(0, half), answer.slice(half)]) {
    res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: piece } }] })}\n\n`);
  }
  res.end('data: [DONE]\n\n');
}

export async function startCheckEngine(initial: Partial<EngineBehaviour> = {}): Promise<CheckEngine> {
  const b: EngineBehaviour = { health: 200, answer: 'Ready.', mode: 'json', status: 500, delayMs: 0, delays: [], ...initial };
  const requests: CheckEngine['requests'] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (req.method === 'GET' && path === '/health') {
      res.writeHead(b.health).end();
      return;
    }
    let text = '';
    req.on('data', (d) => (text += String(d)));
    req.on('end', () => {
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // kept as text: the test sees what came
      }
      requests.push({ method: req.method ?? '', path, body });
      if (b.mode === 'silent') return; // accept, read, never answer
      const { answer, mode, status } = b;
      setTimeout(() => {
        if (mode === 'status') return void res.writeHead(status, { 'content-type': 'application/json' }).end('{"error":{"message":"boom"}}');
        if (mode === 'sse') {
          answerSse(res, answer);
          return;
        }
        const text = JSON.stringify({
          object: 'chat.completion',
          choices: [{ index: 0, message: { role: 'assistant', content: answer }, finish_reason: 'stop' }],
        });
        res.writeHead(200, { 'content-type': 'application/json' }).end(text);
      }, b.delays.shift() ?? b.delayMs);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    set: (next) => Object.assign(b, next),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
