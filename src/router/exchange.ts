// One client request on its way through the router, and undici's handler of its
// upstream reply. The hot path allocates little on purpose: one Exchange per
// request (methods, not closures), the engine's reply passed on chunk by chunk.
//
// Its life: body received -> model resolved (an adapter name goes to its base
// model) -> its turn on the client connection (lane.ts) -> a replica picked,
// or a wait for one (waiting.ts) -> an engine slot (engine-slots.ts) -> the
// attempt; one retry elsewhere while nothing has reached the client, whether
// the replica failed or was ejected meanwhile (ejector.ts).

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Dispatcher } from 'undici';
import { BodyBuffer, pushCounted } from './body-buffer.js';
import type { BodyBudget, BodyHolder } from './budget.js';
import type { Ejector } from './ejector.js';
import type { EngineSlots } from './engine-slots.js';
import { responseHeaders, type RequestHead } from './forward-headers.js';
import type { Lane, LaneUser } from './lane.js';
import { errorJson, RETRY_AFTER_SECONDS, sendError } from './reply.js';
import { routeKey } from './route-key.js';
import { NO_MODEL, type ModelStats, type RouterStats } from './stats.js';
import { acquire, pickUpstream, release, type Attempt, type ModelRoute, type RouterState, type Upstream } from './table.js';
import type { TimerHandle, Timers } from './timers.js';
import type { Upstreams } from './upstream.js';
import type { WaitRoom, Waiter } from './waiting.js';

export interface ProxyContext {
  readonly state: RouterState;
  readonly upstreams: Upstreams;
  readonly budget: BodyBudget;
  readonly stats: RouterStats;
  readonly maxBodyBytes: number;
  /** A failed attempt on a replica, for the log (rate-limited there). */
  readonly onUpstreamError: (replica: string, err: Error) => void;
  readonly timers: Timers;
  readonly ejector: Ejector;
  readonly waiting: WaitRoom;
  readonly slots: EngineSlots;
  /** No progress writing to the client for this long cuts the connection (--write-timeout). */
  readonly writeTimeoutMs: number;
  /** Answers whose client is not keeping up (their bytes wait in the router): what `heldAnswerBytes` sums. */
  readonly backlogged: Set<{ readonly backlog: number }>;
}

const HEADERS_TIMEOUT = 'UND_ERR_HEADERS_TIMEOUT';
/** The router's own want of descriptors or memory: never the replica's fault. */
const ROUTER_ERRORS = new Set(['EMFILE', 'ENFILE', 'ENOBUFS', 'ENOMEM']);
/** What a refused or finished exchange holds: nothing (its bytes go to the garbage collector). */
const EMPTY = new BodyBuffer();
/** Past this, copying a reply into a string costs more than the second iovec it saves. */
const ONE_WRITE_MAX = 16 * 1024;

export class Exchange implements Dispatcher.DispatchHandler, BodyHolder, Attempt, Waiter, LaneUser {
  held = 0;
  private body = new BodyBuffer();
  private refused = false;
  private clientGone = false;
  private stats: ModelStats | null = null;
  /** The model whose replicas serve it (the base model of an adapter). */
  private model = '';
  private route: ModelRoute | null = null;
  private key: number | null = null;
  private streaming = false;
  private dispatchOptions: Dispatcher.DispatchOptions | null = null;
  private upstream: Upstream | null = null;
  private abort: ((err?: Error) => void) | null = null;
  private resumeUpstream: (() => void) | null = null;
  /** The engine sent at least one byte of a reply: it took the request. */
  private heard = false;
  /** The head went to the client: too late for another status. */
  private responded = false;
  private sse = false;
  private retried = false;
  /** The router cut the attempt (its replica was ejected): not the replica's error, and the retry is ours to make. */
  private cut = false;
  private hasLength = false;
  /** A Content-Length reply's first chunk, held back so a small reply leaves in one write with its head and end. */
  private pending: Buffer | null = null;
  private status = 0;
  private holdsLane = false;
  /** LaneUser: its client left; a queued turn is skipped. */
  leftLane = false;
  private counted = false;
  /** When it first waited for a replica (waiting keeps its place in time across wakes); 0 = never. */
  private waitedSinceMs = 0;
  private writeTimer: TimerHandle | null = null;

  constructor(
    private readonly ctx: ProxyContext,
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly startedMs: number,
    private readonly head: RequestHead,
    /** Its client connection's lane: it arrived there (proxy.ts) and departs when its answer ends. */
    private readonly lane: Lane,
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
    if (this.counted) s.inflight--;
    this.ctx.stats.record(s, finished || this.res.headersSent ? this.res.statusCode : 499, this.startedMs);
    this.ctx.waiting.remove(this);
    this.ctx.backlogged.delete(this);
    this.stopWriteTimer();
    this.leftLane = true;
    const held = this.holdsLane;
    this.holdsLane = false;
    this.lane.depart(held);
    if (finished) return;
    // The client left (or was cut for not reading): stop the engine generating tokens for nobody.
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
    // The budget counts what the body pins, its slabs' unused room included (body-buffer.ts).
    if (!pushCounted(this.ctx.budget, this, this.body, chunk)) this.body = EMPTY;
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
    if (fields === null || typeof model !== 'string' || model === '') {
      return sendError(res, 400, 'missing_model', 'The request body must name a model: {"model": "..."}', {}, 'model');
    }
    const state = this.ctx.state;
    // An adapter's name finds its base model (looked up only when the name is not a model's: no allocation on the common path).
    const name = state.models.has(model) ? model : (state.adapters.get(model) ?? model);
    const route = state.models.get(name);
    if (!route) return sendError(res, 404, 'model_not_found', `The model '${model}' does not exist`, {}, 'model');
    this.stats = this.ctx.stats.forModel(name);
    this.model = name;
    this.route = route;
    if (route.mode === 'prefix') this.key = routeKey(this.head.session, fields);
    this.streaming = fields['stream'] === true;
    this.dispatchOptions = { origin: '', path: '', method: 'POST', headers: this.head.forward, body };
    this.lane.enter(this);
  }

  /** LaneUser: the requests before it on its connection have finished. */
  startTurn(): void {
    this.holdsLane = true;
    this.admit(null);
  }

  /** Send to a replica of the model (not `exclude`), or wait for one. */
  private admit(exclude: Upstream | null): void {
    if (this.clientGone || this.res.headersSent) return;
    const route = this.ctx.state.models.get(this.model);
    if (!route) return sendError(this.res, 404, 'model_not_found', `The model '${this.model}' does not exist`, {}, 'model');
    this.route = route;
    const u = pickUpstream(route, this.key, exclude);
    if (u === null) return this.waitForReplica(route);
    // dispatch() has set stats before any admit: counted only what was counted.
    if (!this.counted && this.stats !== null) {
      this.counted = true;
      this.stats.inflight++;
    }
    this.forward(u);
  }

  private waitForReplica(route: ModelRoute): void {
    const now = this.ctx.timers.now();
    if (this.waitedSinceMs === 0) this.waitedSinceMs = now;
    if (!this.ctx.waiting.add(this.model, this, route.settings.waitTimeoutMs, this.waitedSinceMs)) this.modelStarting();
  }

  /** Waiter: the model may have a replica now. */
  wake(): void {
    this.admit(null);
  }

  /** Waiter: waited its whole waitTimeout (or the room was full). */
  expire(): void {
    this.modelStarting();
  }

  private modelStarting(): void {
    if (this.clientGone) return;
    sendError(this.res, 503, 'model_starting', `The model '${this.model}' has no replica ready yet; try again shortly`, {
      'retry-after': String(RETRY_AFTER_SECONDS),
    });
  }

  private forward(u: Upstream): void {
    // dispatch() sets the options before any forward; checked before a slot is taken.
    const opts = this.dispatchOptions;
    if (opts === null) return;
    if (!this.ctx.slots.take(this.model)) {
      return sendError(this.res, 503, 'overloaded', 'The router has too many requests open to engines; try again shortly', { 'retry-after': '1' });
    }
    acquire(this.ctx.state, u, this, this.streaming);
    this.upstream = u;
    this.heard = false;
    this.cut = false;
    this.abort = null;
    (opts as { origin: string }).origin = u.origin;
    // A server's request always has a url; '' only narrows the type.
    (opts as { path: string }).path = u.basePath + (this.req.url ?? '');
    this.ctx.upstreams.poolFor(u).dispatch(opts, this);
  }

  /** Release the replica once, whatever ended the attempt (table.ts release says what `failed` means). */
  private releaseUpstream(failed: boolean | null): Upstream | null {
    const u = this.upstream;
    if (u) {
      this.upstream = null;
      this.ctx.slots.give(this.model);
      release(u, failed, this, this.streaming);
      this.ctx.ejector.ended(u, failed);
    }
    return u;
  }

  /** Attempt: its replica was ejected. Nothing sent to the client yet: cut and retry elsewhere; a started reply: end it. */
  onEjected(): void {
    if (this.clientGone || !this.upstream) return;
    this.cut = true;
    if (this.responded) {
      this.releaseUpstream(null);
      const abort = this.abort;
      this.abort = null;
      abort?.();
      return this.endStarted('The replica serving this stream stopped responding and was taken out of rotation');
    }
    // onError follows the abort (at once, or when undici connects), and retries.
    this.abort?.();
  }

  /** A reply already under way cannot change its status: an SSE stream ends with an error event, anything else is cut. */
  private endStarted(message: string): void {
    this.stopWriteTimer();
    if (!this.sse) return void this.res.destroy();
    this.pending = null;
    this.res.end(`event: error\ndata: ${errorJson(502, 'upstream_unavailable', message)}\n\n`);
  }

  private stopWriteTimer(): void {
    if (this.writeTimer !== null) {
      this.ctx.timers.clearTimeout(this.writeTimer);
      this.writeTimer = null;
    }
  }

  /** Answer bytes waiting in the router for this client (the response's buffer and its socket's). */
  get backlog(): number {
    return this.res.writableLength;
  }

  /** The client's socket took the backlog: the engine may send again. */
  private onDrain(): void {
    this.ctx.backlogged.delete(this);
    this.stopWriteTimer();
    this.resumeUpstream?.();
  }

  /** A client that stops reading holds its connection and an engine socket: past --write-timeout without progress it is cut. */
  private onWriteTimeout(): void {
    this.writeTimer = null;
    this.res.destroy();
  }

  // ---- undici's handler (the engine side) ----

  onConnect(abort: (err?: Error) => void): void {
    if (this.clientGone || this.cut) return abort();
    this.abort = abort;
  }

  onResponseStarted(): void {
    this.heard = true;
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[], resume: () => void): boolean {
    if (this.upstream) this.upstream.cell.bytes++;
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
    this.sse = head.eventStream;
    // A stream (SSE) has no length: show the client the status now, not with the first token.
    if (!head.hasLength) this.res.flushHeaders();
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.clientGone) return false;
    if (this.upstream) this.upstream.cell.bytes++;
    if (this.hasLength && this.pending === null && !this.res.headersSent) {
      this.pending = chunk;
      return true;
    }
    if (this.pending) {
      this.res.write(this.pending);
      this.pending = null;
    }
    const ok = this.res.write(chunk);
    if (!ok) {
      // Backpressure, not buffering: returning false pauses the engine's socket until the client drains,
      // so a client that never reads holds at most what was written before the pause (docs/operations.md#limits).
      this.ctx.backlogged.add(this);
      // Closures only under backpressure: a reply the client keeps up with makes none.
      this.res.once('drain', () => this.onDrain());
      if (this.writeTimer === null) this.writeTimer = this.ctx.timers.setTimeout(() => this.onWriteTimeout(), this.ctx.writeTimeoutMs);
    }
    return ok;
  }

  onComplete(): void {
    if (this.cut) return;
    this.releaseUpstream(this.status >= 500);
    if (this.clientGone) return;
    const last = this.pending;
    this.pending = null;
    // A small reply as a latin1 string leaves with its head in one write() (bytes map to characters one to one).
    if (last) this.res.end(last.length <= ONE_WRITE_MAX ? last.toString('latin1') : last, 'latin1');
    else this.res.end();
  }

  onError(err: Error): void {
    const code = (err as { code?: string }).code;
    const ours = this.clientGone || this.cut || (code !== undefined && ROUTER_ERRORS.has(code));
    const failed = this.releaseUpstream(ours ? null : true);
    this.abort = null;
    if (this.clientGone || this.res.writableEnded) return;
    if (this.cut) {
      // Its replica was ejected before anything reached the client: this is its one retry, elsewhere.
      this.cut = false;
      if (this.responded) return;
      if (!this.retried && failed) {
        this.retried = true;
        return this.admit(failed);
      }
      return sendError(this.res, 502, 'upstream_unavailable', `No replica of '${this.model}' answered`);
    }
    if (failed && !ours) this.ctx.onUpstreamError(failed.replica, err);
    if (this.responded) return void this.res.destroy(); // too late for a status: cut the stream
    if (code !== undefined && ROUTER_ERRORS.has(code)) {
      return sendError(this.res, 503, 'overloaded', 'The router is short of resources; try again shortly', { 'retry-after': '1' });
    }
    const timedOut = code === HEADERS_TIMEOUT;
    if (!this.retried && failed && this.route) {
      // Nothing has reached the client, so one more try is safe for it. An engine
      // that sent even part of a head had taken the request: it is not sent twice,
      // unless it then stalled past the head timeout. A refused or dropped
      // connection may be retried on the same replica when it is the only one (a
      // kept-alive socket closed under us; the replica itself may be fine).
      this.retried = true;
      const route = this.ctx.state.models.get(this.model) ?? this.route;
      if (!this.heard || timedOut) {
        const next = pickUpstream(route, this.key, failed) ?? (!timedOut && route.upstreams.includes(failed) && !failed.cell.run?.out ? failed : null);
        if (next) return this.forward(next);
      }
    }
    if (timedOut) return sendError(this.res, 504, 'upstream_timeout', `No replica of '${this.model}' sent a reply head in time`);
    sendError(this.res, 502, 'upstream_unavailable', `No replica of '${this.model}' answered`);
  }
}

/**
 * The request past a connection's pipelining bound (lane.ts): the requests
 * queued before it are answered, then this 429, then the close. Answering
 * every further request of a flood one by one would cost more than the flood.
 */
export function tooManyPipelined(res: ServerResponse): void {
  sendError(res, 429, 'too_many_pipelined', 'Too many requests pipelined on one connection; wait for the answers first', {
    'retry-after': '1',
    connection: 'close',
  });
}

export function tooLarge(res: ServerResponse, maxBodyBytes: number): void {
  // Closing the connection spares reading the rest of a body we refuse.
  sendError(res, 413, 'request_too_large', `Request body is larger than ${maxBodyBytes} bytes`, { connection: 'close' });
}
