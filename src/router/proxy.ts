// The OpenAI-compatible front door: read the body (bounded), find `model`, pick a
// replica, and stream the engine's answer back byte for byte. The hot path
// allocates little on purpose: one Exchange per request (methods, not closures),
// upstream connections kept alive (upstream.ts), headers as raw arrays.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { acquire, pickUpstream, release, servableModels, type RouterState, type Upstream } from './table.js';
import { RETRY_AFTER_SECONDS, sendError, sendJson } from './reply.js';
import type { Connection, UpstreamSink } from './upstream-connection.js';
import { UpstreamPool } from './upstream-pool.js';

const PROXIED_PATHS = new Set(['/v1/chat/completions', '/v1/completions', '/v1/embeddings']);

export const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;

export interface Proxy {
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** The server's 'checkContinue': `Expect: 100-continue` gets its 100 only for a request the proxy would take. */
  checkContinue(req: IncomingMessage, res: ServerResponse): void;
  /** Drop the kept upstream connections. */
  close(): void;
}

export function createProxy(state: RouterState, maxBodyBytes: number): Proxy {
  const pool = new UpstreamPool();
  const ctx: ProxyContext = { state, pool, maxBodyBytes };

  function handle(req: IncomingMessage, res: ServerResponse): void {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    if (path === '/v1/models' || path.startsWith('/v1/models/')) {
      // HEAD is GET without the body (Node's server drops it), as HTTP wants.
      if (req.method !== 'GET' && req.method !== 'HEAD') return notAllowed(req, res, path, 'GET, HEAD');
      return path === '/v1/models' ? listModels(state, res) : oneModel(state, res, path.slice('/v1/models/'.length));
    }
    if (!PROXIED_PATHS.has(path)) return sendError(res, 404, 'unknown_url', `Unknown request URL: ${req.method} ${path}`, hangUpIfBody(req));
    if (req.method !== 'POST') return notAllowed(req, res, path, 'POST');
    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) > maxBodyBytes) return tooLarge(res, maxBodyBytes);
    new Exchange(ctx, req, res);
  }

  function checkContinue(req: IncomingMessage, res: ServerResponse): void {
    // A refusal (413, 404, 405) goes out instead of the 100, so the client never
    // starts sending a body that would only be thrown away.
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const declared = req.headers['content-length'];
    const refused = req.method !== 'POST' || !PROXIED_PATHS.has(q < 0 ? url : url.slice(0, q)) || (declared !== undefined && Number(declared) > maxBodyBytes);
    if (!refused) res.writeContinue();
    handle(req, res);
  }

  return { handle, checkContinue, close: () => pool.close() };
}

interface ProxyContext {
  readonly state: RouterState;
  readonly pool: UpstreamPool;
  readonly maxBodyBytes: number;
}

/** One client request on its way through the router, and the sink of its upstream reply. */
class Exchange implements UpstreamSink {
  private chunks: Buffer[] = [];
  private size = 0;
  private refused = false;
  private clientGone = false;
  private model = '';
  /** The request head after the Host line (client headers, Content-Length): built once, reused by a retry. */
  private headTail = '';
  private payload: string | Buffer = '';
  private upstream: Upstream | null = null;
  private conn: Connection | null = null;
  private retried = false;
  private firstChunk = true;

  constructor(
    private readonly ctx: ProxyContext,
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
  ) {
    res.on('close', () => this.onClientClose());
    req.on('data', (chunk: Buffer) => this.onBody(chunk));
    req.on('end', () => this.dispatch());
  }

  private onClientClose(): void {
    if (this.res.writableFinished) return;
    // The client left: stop the engine generating tokens for nobody.
    this.clientGone = true;
    const conn = this.conn;
    if (conn) {
      this.conn = null;
      conn.abort();
      this.done();
    }
  }

  private onBody(chunk: Buffer): void {
    if (this.refused) return;
    this.size += chunk.length;
    if (this.size > this.ctx.maxBodyBytes) {
      this.refused = true;
      this.chunks = [];
      tooLarge(this.res, this.ctx.maxBodyBytes);
    } else this.chunks.push(chunk);
  }

  private dispatch(): void {
    if (this.refused || this.clientGone) return;
    const body = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.size);
    this.chunks = [];
    const res = this.res;
    let model: unknown;
    try {
      model = (JSON.parse(body.toString('utf8')) as { model?: unknown } | null)?.model;
    } catch {
      return sendError(res, 400, 'invalid_json', 'The request body is not valid JSON');
    }
    if (typeof model !== 'string' || model === '') {
      return sendError(res, 400, 'missing_model', 'The request body must name a model: {"model": "..."}', {}, 'model');
    }
    const route = this.ctx.state.models.get(model);
    if (!route) return modelNotFound(res, model);
    const u = pickUpstream(route, null);
    if (!u) return noReplica(res, model);
    this.model = model;
    this.payload = oneWrite(body);
    this.headTail = forwardedHeaders(this.req.rawHeaders) + `Content-Length: ${body.length}\r\n\r\n`;
    this.forward(u);
  }

  private forward(u: Upstream): void {
    acquire(this.ctx.state, u);
    this.upstream = u;
    const head = `POST ${u.basePath}${this.req.url} HTTP/1.1\r\nHost: ${u.hostHeader}\r\n${this.headTail}`;
    this.conn = this.ctx.pool.send(u, head, this.payload, this);
  }

  /** Release the replica once, whatever ended the exchange. */
  private done(): void {
    const u = this.upstream;
    if (u) {
      this.upstream = null;
      release(u);
    }
  }

  head(status: number, headers: string[], hasLength: boolean): void {
    try {
      this.res.writeHead(status, headers);
    } catch {
      // A header Node will not send (bad characters from the engine): nothing safe to pass on.
      this.conn?.abort();
      this.conn = null;
      this.done();
      return sendError(this.res, 502, 'upstream_unavailable', `The replica of '${this.model}' sent an invalid reply`);
    }
    // A stream (SSE) has no length: show the client the status now, not with the first token.
    if (!hasLength) this.res.flushHeaders();
  }

  data(chunk: Buffer): boolean {
    // The first chunk goes out with the headers in one write (see oneWrite).
    const ok = this.firstChunk ? this.res.write(oneWrite(chunk), 'latin1') : this.res.write(chunk);
    this.firstChunk = false;
    if (!ok) this.res.once('drain', () => this.conn?.resume());
    return ok;
  }

  end(): void {
    this.conn = null;
    this.done();
    this.res.end();
  }

  fail(responded: boolean, reused: boolean, heard: boolean): void {
    const failed = this.upstream;
    this.conn = null;
    this.done();
    if (this.clientGone) return;
    if (responded) return void this.res.destroy(); // too late for a status: cut the stream
    if (!this.retried && !heard && failed) {
      // The engine sent nothing, so one more try is safe: on another replica of
      // the table in force now, or on the same one if a kept-alive socket had
      // been closed under us (the replica itself may be fine). An engine that
      // sent even part of a head had taken the request: it is not sent twice.
      this.retried = true;
      const route = this.ctx.state.models.get(this.model);
      const next = (route && pickUpstream(route, failed)) ?? (reused && route?.upstreams.includes(failed) ? failed : null);
      if (next) return this.forward(next);
    }
    sendError(this.res, 502, 'upstream_unavailable', `No replica of '${this.model}' answered`);
  }
}

function tooLarge(res: ServerResponse, maxBodyBytes: number): void {
  // Closing the connection spares reading the rest of a body we refuse.
  sendError(res, 413, 'request_too_large', `Request body is larger than ${maxBodyBytes} bytes`, { connection: 'close' });
}

function noReplica(res: ServerResponse, model: string): void {
  sendError(res, 503, 'no_replica', `The model '${model}' has no running replica yet`, {
    'retry-after': String(RETRY_AFTER_SECONDS),
  });
}

function notAllowed(req: IncomingMessage, res: ServerResponse, path: string, allow: string): void {
  sendError(res, 405, 'method_not_allowed', `Use ${allow.split(',')[0]} for ${path}`, { allow, ...hangUpIfBody(req) });
}

/**
 * A refused request's body would otherwise be read to its end to keep the
 * connection (Node does so), with no size limit: closing instead spares that.
 */
function hangUpIfBody(req: IncomingMessage): Record<string, string> {
  const length = req.headers['content-length'];
  const body = req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
  return body ? { connection: 'close' } : {};
}

function modelObject(state: RouterState, id: string): { id: string; object: 'model'; created: number; owned_by: string } {
  return { id, object: 'model', created: Math.floor(state.startedAtMs / 1000), owned_by: 'llmgw' };
}

function listModels(state: RouterState, res: ServerResponse): void {
  sendJson(res, 200, { object: 'list', data: servableModels(state).map((id) => modelObject(state, id)) });
}

/** OpenAI's `GET /v1/models/{model}`: the model object while it can be served, else 404 as for a request. */
function oneModel(state: RouterState, res: ServerResponse, encoded: string): void {
  let id: string;
  try {
    id = decodeURIComponent(encoded);
  } catch {
    id = encoded;
  }
  if ((state.models.get(id)?.upstreams.length ?? 0) === 0) return modelNotFound(res, id);
  sendJson(res, 200, modelObject(state, id));
}

function modelNotFound(res: ServerResponse, model: string): void {
  sendError(res, 404, 'model_not_found', `The model '${model}' does not exist`, {}, 'model');
}

/**
 * A head and a body leave in one write() when both are strings; on loopback the
 * syscall is most of a small request's cost. latin1 maps bytes to characters one
 * to one, so the bytes stay exactly the client's. Large bodies stay buffers:
 * copying them would cost more than the second syscall.
 */
function oneWrite(chunk: Buffer): string | Buffer {
  return chunk.length <= ONE_WRITE_MAX ? chunk.toString('latin1') : chunk;
}

const ONE_WRITE_MAX = 16 * 1024;

// Headers that describe one hop's connection, not the message, are not forwarded;
// Host and Content-Length are the router's to set.
const REQUEST_DROP = new Set([
  'te', 'trailer', 'upgrade', 'connection', 'keep-alive', 'proxy-connection',
  'transfer-encoding', 'proxy-authorization', 'host', 'content-length', 'expect',
]);
const DROP_LENGTHS = new Set([...REQUEST_DROP].map((h) => h.length));
const PLAIN_CONNECTION = new Set(['keep-alive', 'close']);

/** The client's headers as request lines; most names skip the lowercasing by length alone. */
function forwardedHeaders(raw: string[]): string {
  let out = '';
  let named: Set<string> | null = null;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if (DROP_LENGTHS.has(name.length) && REQUEST_DROP.has(name.toLowerCase())) {
      // Nearly every client sends just `keep-alive` (or `close`): no need to split those.
      if (name.length === 10 && name.toLowerCase() === 'connection' && !PLAIN_CONNECTION.has(raw[i + 1]!.toLowerCase())) {
        named = connectionNamed(raw[i + 1]!, named);
      }
      continue;
    }
    out += `${name}: ${raw[i + 1]!}\r\n`;
  }
  return named ? withoutNamed(raw, named) : out;
}

/** Headers a client's `Connection:` names are for this hop only (RFC 9110 §7.6.1). */
function connectionNamed(value: string, named: Set<string> | null): Set<string> | null {
  for (const token of value.split(',')) {
    const t = token.trim().toLowerCase();
    if (t !== '' && t !== 'close' && t !== 'keep-alive') (named ??= new Set()).add(t);
  }
  return named;
}

function withoutNamed(raw: string[], named: Set<string>): string {
  let out = '';
  for (let i = 0; i < raw.length; i += 2) {
    const lower = raw[i]!.toLowerCase();
    if (!REQUEST_DROP.has(lower) && !named.has(lower)) out += `${raw[i]!}: ${raw[i + 1]!}\r\n`;
  }
  return out;
}
