// Small real engines on 127.0.0.1 and a client, for the router's tests.

import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRouter, type RouterOptions, type RunningRouter } from '../../src/router/server.js';
import { runRouterClient } from '../../src/router/client.js';
import type { RouterEndpoints } from '../../src/types/snapshot.js';
import { suite, type Test } from 'uvu';

export interface Engine {
  name: string;
  url: string;
  port: number;
  /** Bodies received, in order of arrival. */
  received: { path: string; body: Record<string, unknown>; headers: http.IncomingHttpHeaders }[];
  close(): Promise<void>;
}

export type EngineHandler = (req: IncomingMessage, res: ServerResponse, body: Record<string, unknown>) => void;

/** An engine that answers {"engine":name,"model":…,"seq":…} unless given its own handler. */
export async function startEngine(name: string, handler?: EngineHandler): Promise<Engine> {
  const received: Engine['received'] = [];
  const server = http.createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (text += c));
    req.on('end', () => {
      const body = JSON.parse(text) as Record<string, unknown>;
      received.push({ path: req.url ?? '', body, headers: req.headers });
      if (handler) {
        handler(req, res, body);
        return;
      }
      const out = JSON.stringify({ engine: name, model: body['model'], seq: body['seq'] ?? null });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(out) });
      res.end(out);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    name,
    url: `http://127.0.0.1:${port}`,
    port,
    received,
    close: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

/** Engines a test file starts, closed together after each test. */
export function engineTracker(): { engine: (name: string, handler?: EngineHandler) => Promise<Engine>; closeAll: () => Promise<void> } {
  const running: Engine[] = [];
  return {
    async engine(name, handler) {
      const e = await startEngine(name, handler);
      running.push(e);
      return e;
    },
    async closeAll() {
      await Promise.all(running.splice(0).map((e) => e.close()));
    },
  };
}

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the parsed body (JSON); each test asserts the fields it reads
  json: any;
}

export const clientAgent = new http.Agent({ keepAlive: true, maxSockets: 1024 });

export function request(port: number, path: string, body: string | object | null, method = 'POST', headers: Record<string, string> = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path, method, agent: clientAgent, headers: { 'content-type': 'application/json', ...headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('error', reject);
        res.on('close', () => {
          if (!res.complete) reject(Object.assign(new Error('reply cut short'), { code: 'CUT' }));
        });
        res.on('end', () => {
          let json: unknown = null;
          try {
            json = JSON.parse(text);
          } catch {
            /* not JSON */
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      },
    );
    req.on('error', reject);
    req.end(body === null ? undefined : typeof body === 'string' ? body : JSON.stringify(body));
  });
}

export function chat(port: number, model: string, extra: Record<string, unknown> = {}): Promise<Reply> {
  return request(port, '/v1/chat/completions', { model, messages: [{ role: 'user', content: 'hi' }], ...extra });
}

export function tempSocket(): { path: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'llmgw-rt-'));
  return { path: join(dir, 'admin.sock'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface TestRouter extends RunningRouter {
  socket: string;
  /** Swap in a table; `routing` as the reconciler sends it (absent: every model by prefix). */
  setTable(models: Record<string, { replica: string; url: string }[]>, routing?: RouterEndpoints['routing']): Promise<void>;
  /** Swap in a whole table (settings, lease and all). */
  put(table: RouterEndpoints): Promise<void>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the usage reply (JSON); each test asserts the fields it reads
  usage(): Promise<any>;
}

export async function withRouter(opts: Omit<RouterOptions, 'listen' | 'adminSocket'> & { socket?: string } = {}): Promise<TestRouter> {
  // A socket directory made here is removed when the router closes; one passed in is the caller's.
  const own = opts.socket === undefined ? tempSocket() : null;
  const socket = opts.socket ?? own!.path;
  const { socket: _socket, ...rest } = opts;
  const r = await startRouter({ ...rest, listen: { host: '127.0.0.1', port: 0 }, adminSocket: socket });
  const env = { LLMGW_ROUTER_SOCKET: socket };
  return {
    ...r,
    async close(graceMs?: number) {
      await r.close(graceMs);
      own?.cleanup();
    },
    socket,
    async setTable(models, routing) {
      const table: RouterEndpoints = routing ? { version: 1, models, routing } : { version: 1, models };
      const out = await runRouterClient('endpoints', JSON.stringify(table), env);
      if (out.code !== 0) throw new Error(out.stderr);
    },
    async put(table) {
      const out = await runRouterClient('endpoints', JSON.stringify(table), env);
      if (out.code !== 0) throw new Error(out.stderr);
      if (!(JSON.parse(out.stdout) as { ok: boolean }).ok) throw new Error(out.stdout);
    },
    async usage() {
      const out = await runRouterClient('usage', '', env);
      if (out.code !== 0) throw new Error(out.stderr);
      return JSON.parse(out.stdout);
    },
  };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Resolves when `check` holds, polling; rejects after `ms`. */
export async function eventually(check: () => boolean, ms = 2000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('condition not reached in time');
    await sleep(5);
  }
}

/** `eventually` for a check that asks the router (usage over the admin socket). */
export async function eventuallyAsync(check: () => Promise<boolean>, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not reached in time');
    await sleep(10);
  }
}

/**
 * A suite whose tests each start their own engines and at most one router
 * (`router(...)` is withRouter, remembered): after each test the router and
 * every engine are closed, after the suite the client's kept-alive sockets.
 */
export function routerSuite(name: string): {
  test: Test;
  engine: (name: string, handler?: EngineHandler) => Promise<Engine>;
  router: (opts?: Parameters<typeof withRouter>[0]) => Promise<TestRouter>;
} {
  const test = suite(name);
  const { engine, closeAll } = engineTracker();
  let current: TestRouter | null = null;
  test.after.each(async () => {
    await current?.close();
    current = null;
    await closeAll();
  });
  test.after(() => clientAgent.destroy());
  return { test, engine, router: async (opts) => (current = await withRouter(opts)) };
}

/** POSTs `body` to `path` and hangs up at the first chunk of the answer: a client that leaves mid-stream. */
export function leaveAtFirstChunk(port: number, path: string, body: object): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method: 'POST', agent: false }, (res) => {
      res.once('data', () => {
        req.destroy();
        resolve();
      });
    });
    req.on('error', () => undefined);
    req.end(JSON.stringify(body));
    setTimeout(() => reject(new Error('no first chunk')), 3000).unref();
  });
}
