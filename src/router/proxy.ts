// The OpenAI-compatible front door: read the body (bounded), find `model`, pick a
// replica, and stream the engine's answer back byte for byte. The hot path
// allocates little on purpose: one small record per request, upstream
// connections kept alive, headers passed as raw arrays.

import http, { type ClientRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import { acquire, pickUpstream, release, servableModels, type RouterState, type Upstream } from './table.js';
import { RETRY_AFTER_SECONDS, sendError, sendJson } from './reply.js';

const PROXIED_PATHS = new Set(['/v1/chat/completions', '/v1/completions', '/v1/embeddings']);

export const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;

/** One client request on its way through the router. */
interface Exchange {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly model: string;
  readonly body: Buffer;
  /** Raw request headers to forward; slots 0-1 are Host, rewritten per upstream, 2-3 the body's length. */
  readonly headers: string[];
  upstream: ClientRequest | null;
  retried: boolean;
  clientGone: boolean;
}

export interface Proxy {
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** Drop the kept upstream connections. */
  close(): void;
}

export function createProxy(state: RouterState, maxBodyBytes: number): Proxy {
  // Engines batch many concurrent requests, so the pool must not queue them
  // behind a small socket limit (that would also blind least-in-flight).
  const agentOptions = { keepAlive: true, maxSockets: 1024, maxFreeSockets: 256, scheduling: 'lifo' as const, noDelay: true };
  const httpAgent = new http.Agent(agentOptions);
  const httpsAgent = new https.Agent(agentOptions);

  function handle(req: IncomingMessage, res: ServerResponse): void {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    if (path === '/v1/models') {
      if (req.method !== 'GET') return sendError(res, 405, 'method_not_allowed', 'Use GET for /v1/models');
      return listModels(res);
    }
    if (!PROXIED_PATHS.has(path)) return sendError(res, 404, 'unknown_url', `Unknown request URL: ${req.method} ${path}`);
    if (req.method !== 'POST') return sendError(res, 405, 'method_not_allowed', `Use POST for ${path}`);
    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) > maxBodyBytes) return tooLarge(res);
    readBody(req, res);
  }

  function readBody(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    let gone = false;
    res.on('close', () => (gone = true));
    req.on('data', (chunk: Buffer) => {
      if (refused) return;
      size += chunk.length;
      if (size > maxBodyBytes) {
        refused = true;
        tooLarge(res);
      } else chunks.push(chunk);
    });
    req.on('end', () => {
      if (!refused && !gone) dispatch(req, res, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    });
  }

  function tooLarge(res: ServerResponse): void {
    // Closing the connection spares reading the rest of a body we refuse.
    sendError(res, 413, 'request_too_large', `Request body is larger than ${maxBodyBytes} bytes`, { connection: 'close' });
  }

  function dispatch(req: IncomingMessage, res: ServerResponse, body: Buffer): void {
    let model: unknown;
    try {
      model = (JSON.parse(body.toString('utf8')) as { model?: unknown } | null)?.model;
    } catch {
      return sendError(res, 400, 'invalid_json', 'The request body is not valid JSON');
    }
    if (typeof model !== 'string' || model === '') {
      return sendError(res, 400, 'missing_model', 'The request body must name a model: {"model": "..."}');
    }
    const route = state.models.get(model);
    if (!route) return sendError(res, 404, 'model_not_found', `The model '${model}' does not exist`);
    const u = pickUpstream(route, null);
    if (!u) return noReplica(res, model);
    const ex: Exchange = { req, res, model, body, headers: forwardHeaders(req.rawHeaders, body.length), upstream: null, retried: false, clientGone: false };
    res.on('close', () => {
      if (res.writableFinished) return;
      // The client left: stop the engine generating tokens for nobody.
      ex.clientGone = true;
      ex.upstream?.destroy();
    });
    forward(ex, u);
  }

  function forward(ex: Exchange, u: Upstream): void {
    acquire(state, u);
    let released = false;
    let responded = false;
    const done = (): void => {
      if (released) return;
      released = true;
      release(u);
    };
    ex.headers[1] = u.hostHeader;
    const up = (u.https ? https : http).request({
      host: u.hostname,
      port: u.port,
      method: 'POST',
      path: u.basePath + ex.req.url,
      headers: ex.headers,
      agent: u.https ? httpsAgent : httpAgent,
    });
    ex.upstream = up;
    up.on('response', (upRes: IncomingMessage) => {
      responded = true;
      const res = ex.res;
      res.writeHead(upRes.statusCode ?? 502, responseHeaders(upRes.rawHeaders));
      // A stream (SSE) has no length: show the client the status now, not with the first token.
      if (upRes.headers['content-length'] === undefined) res.flushHeaders();
      upRes.pipe(res);
      upRes.on('error', () => res.destroy());
    });
    up.on('close', done);
    up.on('error', () => {
      done();
      if (ex.clientGone) return;
      if (responded) return void ex.res.destroy();
      if (!ex.retried) {
        // Nothing reached the client yet, so one more try is safe. A kept-alive
        // socket the engine closed as we reused it may be retried on the same replica.
        ex.retried = true;
        const route = state.models.get(ex.model);
        const next = (route && pickUpstream(route, u)) ?? (up.reusedSocket && route?.upstreams.includes(u) ? u : null);
        if (next) return forward(ex, next);
      }
      sendError(ex.res, 502, 'upstream_unavailable', `No replica of '${ex.model}' answered`);
    });
    up.end(ex.body);
  }

  function noReplica(res: ServerResponse, model: string): void {
    sendError(res, 503, 'no_replica', `The model '${model}' has no running replica yet`, {
      'retry-after': String(RETRY_AFTER_SECONDS),
    });
  }

  function listModels(res: ServerResponse): void {
    const created = Math.floor(state.startedAtMs / 1000);
    const data = servableModels(state).map((id) => ({ id, object: 'model', created, owned_by: 'llmgw' }));
    sendJson(res, 200, { object: 'list', data });
  }

  return {
    handle,
    close() {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}

// Headers that describe one hop's connection, not the message, are never
// forwarded. On the way in, Host and Content-Length are the router's to set;
// on the way out the engine's length is
// the body's length and stays.
const HOP_BY_HOP = ['te', 'trailer', 'upgrade', 'connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'proxy-authorization'];
const REQUEST_DROP = new Set([...HOP_BY_HOP, 'host', 'content-length']);
const RESPONSE_DROP = new Set(HOP_BY_HOP);
const DROP_LENGTHS = new Set([...REQUEST_DROP].map((h) => h.length));

/** Cheap test first: most header names have a length no dropped header has, and skip the lowercasing. */
function dropped(name: string, drop: ReadonlySet<string>): boolean {
  return DROP_LENGTHS.has(name.length) && drop.has(name.toLowerCase());
}

function forwardHeaders(raw: string[], length: number): string[] {
  const out = ['Host', '', 'Content-Length', String(length)];
  for (let i = 0; i < raw.length; i += 2) {
    if (!dropped(raw[i]!, REQUEST_DROP)) out.push(raw[i]!, raw[i + 1]!);
  }
  return out;
}

function responseHeaders(raw: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    if (!dropped(raw[i]!, RESPONSE_DROP)) out.push(raw[i]!, raw[i + 1]!);
  }
  return out;
}
