// One client request on its way through the router, and undici's handler of its
// upstream reply. The hot path allocates little on purpose: one Exchange per
// request (methods, not closures), the engine's reply passed on chunk by chunk.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Dispatcher } from 'undici';
import { BodyBuffer } from './body-buffer.js';
import type { BodyBudget, BodyHolder } from './budget.js';
import { responseHeaders, type RequestHead } from './forward-headers.js';
import { RETRY_AFTER_SECONDS, sendError } from './reply.js';
import { routeKey } from './route-key.js';
import { NO_MODEL, type ModelStats, type RouterStats } from './stats.js';
import { acquire, pickUpstream, release, type ModelRoute, type RouterState, type Upstream } from './table.js';
import type { Upstreams } from './upstream.js';
import { errnoCode } from '../util/errno.js';

export interface ProxyContext {
  readonly state: RouterState;
  readonly upstreams: Upstreams;
  readonly budget: BodyBudget;
  readonly stats: RouterStats;
  readonly maxBodyBytes: number;
  /** A failed attempt on a replica, for the log (rate-limited there). */
  readonly onUpstreamError: (replica: string, err: Error) => void;
}

const HEADERS_TIMEOUT = 'UND_ERR_HEADERS_TIMEOUT';
/** What a refused or finished exchange holds: nothing (its bytes go to the garbage collector). */
const EMPTY = new BodyBuffer();
/** Past this, copying a reply into a string costs more than the second iovec it saves. */
const ONE_WRITE_MAX = 16 * 1024;

export class Exchange implements Dispatcher.DispatchHandler, BodyHolder {
  held = 0;
  private body = new BodyBuffer();
  private refused = false;
  private clientGone = false;
  private stats: ModelStats | null = null;
  private model = '';
  private route: ModelRoute | null = null;
  private key: number | null = null;
  private dispatchOptions: Dispatcher.DispatchOptions | null = null;
  private upstream: Upstream | null = null;
  private abort: ((err?: Error) => void) | null = null;
  private resumeUpstream: (() => void) | null = null;
  /** The engine sent at least one byte of a reply: it took the request. */
  private heard = false;
  /** The head went to the client: too late for another status. */
  private responded = false;
  private retried = false;
  private hasLength = false;
  /** A Content-Length reply's first chunk, held back so a small reply leaves in one write with its head and end. */
  private pending: Buffer | null = null;
  private status = 0;

  constructor(
    private readonly ctx: ProxyContext,
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly startedMs: number,
    private readonly head: RequestHead,
  ) {
    res.on('close', () => this.onClientClose());
    req.on('data', (chunk: Buffer) => this.onBody(chunk));
    req.on('end', () => this.dispatch());
  }

  // ---- the client side ----

  private onClientClose(): void {
    const finished = this.res.writableFinished;
    this.ctx.budget.release(this);
    const s = this.stats ?? this.ctx.stats.forModel(NO_MODEL);
    if (this.dispatchOptions) s.inflight--;
    this.ctx.stats.record(s, finished || this.res.headersSent ? this.res.statusCode : 499, this.startedMs);
    if (finished) return;
    // The client left: stop the engine generating tokens for nobody.
    this.clientGone = true;
    this.body = EMPTY;
    if (this.abort) this.abort();
  }

  private onBody(chunk: Buffer): void {
    if (this.refused || this.clientGone) return;
    if (this.body.size + chunk.length > this.ctx.maxBodyBytes) {
      this.refused = true;
      this.body = EMPTY;
      this.ctx.budget.release(this);
      return tooLarge(this.res, this.ctx.maxBodyBytes);
    }
    // The budget counts bytes received; a body's slabs hold at most 64 KiB more (body-buffer.ts).
    if (this.ctx.budget.take(this, chunk.length)) this.body.push(chunk);
    else this.body = EMPTY;
  }

  /** BodyBudget: the router holds too much; this request is the one to go. */
  evict(): void {
    this.refused = true;
    this.body = EMPTY;
    // Closing spares reading the rest of a body that is refused.
    sendError(this.res, 503, 'overloaded', 'The router is holding too many request bytes; try again shortly', { connection: 'close', 'retry-after': '1' });
  }

  private dispatch(): void {
    if (this.refused || this.clientGone) return;
    this.ctx.budget.received(this);
    const body = this.body.take();
    this.body = EMPTY;
    const res = this.res;
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      return sendError(res, 400, 'invalid_json', 'The request body is not valid JSON');
    }
    const fields = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
    const model = fields?.['model'];
    if (typeof model !== 'string' || model === '') {
      return sendError(res, 400, 'missing_model', 'The request body must name a model: {"model": "..."}', {}, 'model');
    }
    const route = this.ctx.state.models.get(model);
    if (!route) return sendError(res, 404, 'model_not_found', `The model '${model}' does not exist`, {}, 'model');
    this.stats = this.ctx.stats.forModel(model);
    if (route.upstreams.length === 0) return noReplica(res, model);
    this.model = model;
    this.route = route;
    if (route.mode === 'prefix') this.key = routeKey(this.head.session, fields!);
    const u = pickUpstream(route, this.key, null)!;
    this.dispatchOptions = {
      origin: u.origin,
      path: '',
      method: 'POST',
      headers: this.head.forward,
      body,
    };
    this.stats.inflight++;
    this.forward(u);
  }

  private forward(u: Upstream): void {
    acquire(this.ctx.state, u);
    this.upstream = u;
    this.heard = false;
    this.abort = null;
    const opts = this.dispatchOptions!;
    (opts as { origin: string }).origin = u.origin;
    (opts as { path: string }).path = u.basePath + this.req.url;
    this.ctx.upstreams.poolFor(u).dispatch(opts, this);
  }

  /** Release the replica once, whatever ended the attempt. */
  private releaseUpstream(failed: boolean): Upstream | null {
    const u = this.upstream;
    if (u) {
      this.upstream = null;
      release(u, failed);
    }
    return u;
  }

  // ---- undici's handler (the engine side) ----

  onConnect(abort: (err?: Error) => void): void {
    if (this.clientGone) return abort();
    this.abort = abort;
  }

  onResponseStarted(): void {
    this.heard = true;
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[], resume: () => void): boolean {
    if (statusCode < 200) return true; // 100 Continue, 103 Early Hints: the real head follows
    if (this.clientGone) return false;
    this.resumeUpstream = resume;
    this.status = statusCode;
    const head = responseHeaders(rawHeaders);
    try {
      this.res.writeHead(statusCode, head.headers);
    } catch {
      // A header Node will not send (bad characters from the engine): nothing safe to pass on.
      this.abort?.();
      return false;
    }
    this.responded = true;
    this.hasLength = head.hasLength;
    // A stream (SSE) has no length: show the client the status now, not with the first token.
    if (!head.hasLength) this.res.flushHeaders();
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.clientGone) return false;
    if (this.hasLength && this.pending === null && !this.res.headersSent) {
      this.pending = chunk;
      return true;
    }
    let ok = true;
    if (this.pending) {
      this.res.write(this.pending);
      this.pending = null;
    }
    ok = this.res.write(chunk);
    if (!ok) this.res.once('drain', this.resumeUpstream!);
    return ok;
  }

  onComplete(): void {
    this.releaseUpstream(this.status >= 500);
    if (this.clientGone) return;
    const last = this.pending;
    this.pending = null;
    // A small reply as a latin1 string leaves with its head in one write() (bytes map to characters one to one).
    if (last) this.res.end(last.length <= ONE_WRITE_MAX ? last.toString('latin1') : last, 'latin1');
    else this.res.end();
  }

  onError(err: Error): void {
    const failed = this.releaseUpstream(!this.clientGone);
    this.abort = null;
    if (this.clientGone) return;
    if (failed) this.ctx.onUpstreamError(failed.replica, err);
    if (this.responded) return void this.res.destroy(); // too late for a status: cut the stream
    const timedOut = errnoCode(err) === HEADERS_TIMEOUT;
    if (!this.retried && failed && this.route) {
      // Nothing has reached the client, so one more try is safe for it. An engine
      // that sent even part of a head had taken the request: it is not sent twice,
      // unless it then stalled past the head timeout. A refused or dropped
      // connection may be retried on the same replica when it is the only one (a
      // kept-alive socket closed under us; the replica itself may be fine).
      this.retried = true;
      const route = this.ctx.state.models.get(this.model) ?? this.route;
      if (!this.heard || timedOut) {
        const next = pickUpstream(route, this.key, failed) ?? (!timedOut && route.upstreams.includes(failed) ? failed : null);
        if (next) return this.forward(next);
      }
    }
    if (timedOut) return sendError(this.res, 504, 'upstream_timeout', `No replica of '${this.model}' sent a reply head in time`);
    sendError(this.res, 502, 'upstream_unavailable', `No replica of '${this.model}' answered`);
  }
}

export function tooLarge(res: ServerResponse, maxBodyBytes: number): void {
  // Closing the connection spares reading the rest of a body we refuse.
  sendError(res, 413, 'request_too_large', `Request body is larger than ${maxBodyBytes} bytes`, { connection: 'close' });
}

function noReplica(res: ServerResponse, model: string): void {
  sendError(res, 503, 'no_replica', `The model '${model}' has no running replica yet`, {
    'retry-after': String(RETRY_AFTER_SECONDS),
  });
}
