// The OpenAI-compatible front door: the paths it answers itself (/v1/models), the
// ones it proxies (exchange.ts), and the refusals in between, each in the OpenAI
// error shape (reply.ts).

import type { IncomingMessage, ServerResponse } from 'node:http';
import { Exchange, tooLarge, tooManyPipelined, type ProxyContext } from './exchange.js';
import { readRequestHead } from './forward-headers.js';
import { isRefusedSocket } from './front-door.js';
import { isClosingLane, laneOf, MAX_OVERFLOWING, OVERFLOW_HOLD_MS } from './lane.js';
import { hangUpIfBody, sendError, sendJson } from './reply.js';
import { NO_MODEL } from './stats.js';
import { routeOf, servableModels, type RouterState } from './table.js';

/**
 * The OpenAI routes whose JSON body names the model (vLLM serves them all):
 * routed by that name like chat. Stateful routes that name a stored object
 * instead (GET /v1/responses/{id}) cannot be routed by model and are not here.
 */
export const PROXIED_PATHS = new Set([
  '/v1/chat/completions',
  '/v1/completions',
  '/v1/embeddings',
  '/v1/responses',
  '/v1/moderations',
  '/v1/rerank',
  '/v1/score',
  '/v1/classify',
  '/v1/pooling',
  '/v1/tokenize',
  '/v1/detokenize',
  '/v1/audio/speech',
  '/v1/images/generations',
]);

export const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;

export interface Proxy {
  /** Given to the server unbound, as its request listener. */
  handle: (req: IncomingMessage, res: ServerResponse) => void;
  /** The server's 'checkContinue': `Expect: 100-continue` gets its 100 only for a request the proxy would take. */
  checkContinue: (req: IncomingMessage, res: ServerResponse) => void;
}

export function createProxy(ctx: ProxyContext): Proxy {
  const { state, maxBodyBytes } = ctx;

  function handle(req: IncomingMessage, res: ServerResponse): void {
    if (isRefusedSocket(req.socket)) return void req.socket.destroy();
    // A connection that pipelined past its bound gets its 429 and a close (lane.ts); the rest of its
    // flood is not answered one by one: the response, when its turn comes, ends the connection.
    if (isClosingLane(req.socket)) return void res.destroy();
    const started = performance.now();
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    if (PROXIED_PATHS.has(path) && req.method === 'POST') {
      const head = readRequestHead(req.rawHeaders);
      if (head.hasHost || req.httpVersion !== '1.1') {
        const declared = head.contentLength;
        if (declared === undefined || Number(declared) <= maxBodyBytes) {
          // Counted on arrival, before its body is read: past the bound it costs no exchange (lane.ts).
          const lane = laneOf(req.socket);
          if (lane.arrive()) {
            new Exchange(ctx, req, res, started, head, lane);
            return;
          }
          return refuseOverflow(req, res, started);
        }
        tooLarge(res, maxBodyBytes);
        return ctx.stats.record(ctx.stats.forModel(NO_MODEL), res.statusCode, started);
      }
    }
    answerHere(req, res, path);
    ctx.stats.record(ctx.stats.forModel(NO_MODEL), res.statusCode, started);
  }

  /** Connections that overflowed their lane and have not closed yet (lane.ts: at most MAX_OVERFLOWING). */
  let overflowing = 0;

  /**
   * The request past a connection's pipelining bound: its 429 and the close,
   * OVERFLOW_HOLD_MS after it arrived; past MAX_OVERFLOWING such connections,
   * the close at once (lane.ts).
   */
  function refuseOverflow(req: IncomingMessage, res: ServerResponse, started: number): void {
    const socket = req.socket;
    // Already going (the client left mid-read): nothing to hold, and a 'close' already emitted would never uncount it.
    if (socket.destroyed) return;
    if (overflowing >= MAX_OVERFLOWING) {
      socket.destroy();
      return ctx.stats.record(ctx.stats.forModel(NO_MODEL), 429, started);
    }
    overflowing++;
    const timer = setTimeout(() => {
      tooManyPipelined(res);
      ctx.stats.record(ctx.stats.forModel(NO_MODEL), res.statusCode, started);
    }, OVERFLOW_HOLD_MS);
    timer.unref();
    socket.once('close', () => {
      overflowing--;
      clearTimeout(timer);
    });
  }

  /** Everything that is not a request to proxy: answered by the router itself. */
  function answerHere(req: IncomingMessage, res: ServerResponse, path: string): void {
    // HTTP/1.1 requires Host (RFC 9112 §3.2); Node's own refusal would be a bare 400, so the check is here.
    if (!hostOk(req)) {
      return sendError(res, 400, 'missing_host', 'An HTTP/1.1 request must carry a Host header', hangUpIfBody(req));
    }
    if (path === '/v1/models' || path.startsWith('/v1/models/')) {
      // HEAD is GET without the body (Node's server drops it), as HTTP wants.
      if (req.method !== 'GET' && req.method !== 'HEAD') return notAllowed(req, res, path, 'GET, HEAD');
      return path === '/v1/models' ? listModels(state, res) : oneModel(state, res, path.slice('/v1/models/'.length));
    }
    if (!PROXIED_PATHS.has(path)) return sendError(res, 404, 'unknown_url', `Unknown request URL: ${req.method ?? ''} ${path}`, hangUpIfBody(req));
    return notAllowed(req, res, path, 'POST');
  }

  function checkContinue(req: IncomingMessage, res: ServerResponse): void {
    // A refusal (413, 404, 405) goes out instead of the 100, so the client never
    // starts sending a body that would only be thrown away.
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const declared = req.headers['content-length'];
    const refused =
      req.method !== 'POST' || !PROXIED_PATHS.has(q < 0 ? url : url.slice(0, q)) || !hostOk(req) || (declared !== undefined && Number(declared) > maxBodyBytes);
    if (!refused) res.writeContinue();
    handle(req, res);
  }

  return { handle, checkContinue };
}

function hostOk(req: IncomingMessage): boolean {
  return req.headers.host !== undefined || req.httpVersion !== '1.1';
}

function notAllowed(req: IncomingMessage, res: ServerResponse, path: string, allow: string): void {
  sendError(res, 405, 'method_not_allowed', `Use ${allow.split(',')[0] ?? allow} for ${path}`, { allow, ...hangUpIfBody(req) });
}

interface ModelObject {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
  /** An adapter's base model (vLLM lists LoRA adapters the same way). */
  parent?: string;
}

function modelObject(state: RouterState, id: string): ModelObject {
  const base: ModelObject = { id, object: 'model', created: Math.floor(state.startedAtMs / 1000), owned_by: 'llmgw' };
  const parent = state.adapters.get(id);
  return parent === undefined ? base : { ...base, parent };
}

/** Models with a replica, and their adapters, sorted by id. */
function listModels(state: RouterState, res: ServerResponse): void {
  const servable = servableModels(state);
  const listed = new Set(servable);
  const ids = [...servable, ...[...state.adapters].filter(([, base]) => listed.has(base)).map(([name]) => name)].sort();
  sendJson(res, 200, { object: 'list', data: ids.map((id) => modelObject(state, id)) });
}

/** OpenAI's `GET /v1/models/{model}`: the model object while it can be served, else 404 as for a request. */
function oneModel(state: RouterState, res: ServerResponse, encoded: string): void {
  let id: string;
  try {
    id = decodeURIComponent(encoded);
  } catch {
    id = encoded;
  }
  if ((routeOf(state, id)?.route.upstreams.length ?? 0) === 0) {
    return sendError(res, 404, 'model_not_found', `The model '${id}' does not exist`, {}, 'model');
  }
  sendJson(res, 200, modelObject(state, id));
}
