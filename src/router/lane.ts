// One request of a client connection upstream at a time (docs/operations.md#limits).
// HTTP/1.1 pipelining lets a client send many requests before reading any
// answer; Node's server hands every one to the router at once, and the answers
// must still leave in order. Without a lane, one connection could hold as many
// engine sockets (and engine slots) as it pipelines; with it, the next request
// of a connection starts only when the one before it has finished.
//
// The bound is counted when a request *arrives* (its head parsed), not when its
// body ends: Node parses a whole socket read (64 KiB, some 200 small requests)
// in one go, and a request refused at arrival costs nothing but Node's own
// objects — no exchange, no answer of its own. A connection with 1 +
// PIPELINE_DEPTH requests open is not read further (backpressure: a client that
// pipelines in several writes waits in its own socket buffer); one that still
// had more in the bytes already read gets, after the requests queued before,
// one 429 and the close (exchange.ts, proxy.ts).
// A request queued here is neither in flight nor waiting: it is the client's.
//
// That 429 waits OVERFLOW_HOLD_MS before it goes (its Retry-After, enforced):
// the bytes of one read already cost Node a request and a response object for
// each of some 200 requests, and a client that reconnects the moment it is
// closed could have the router parse its flood several times a second per
// connection. Held, the connection costs a paused socket and nothing upstream —
// but until it closes Node keeps every request it parsed from that read, some
// 700 KB a connection. So at most MAX_OVERFLOWING connections are held at once;
// one that overflows past them is closed at once, its requests unanswered.

/** Requests of one connection queued behind the one being served. */
export const PIPELINE_DEPTH = 16;

/** How long a connection that overflowed its lane waits for its 429 and close. */
export const OVERFLOW_HOLD_MS = 1000;

/** Connections that overflowed and are not yet closed, at most (held or still being answered). */
export const MAX_OVERFLOWING = 64;

/** A request of the connection (exchange.ts): started when its turn comes, skipped when its client left first. */
export interface LaneUser {
  startTurn(): void;
  readonly leftLane: boolean;
}

/** The part of a client socket a lane pauses and resumes (net.Socket; `_paused` is Node's server's own pause). */
export interface LaneSocket {
  pause(): unknown;
  resume(): unknown;
  readonly _paused?: boolean;
  readonly destroyed?: boolean;
  prependOnceListener?(event: 'close', listener: () => void): unknown;
  once?(event: 'close', listener: () => void): unknown;
}

/**
 * A connection closed for overflowing its lane still has every request Node
 * parsed from its last read (some 200) unanswered, and Node's server aborts each
 * with an Error whose stack it captures and formats (streams' destroy reads
 * `err.stack`): under a pipelining flood that was a quarter of the router's CPU,
 * spent on errors no one receives. Node's own 'close' listener does those aborts,
 * and it was added when the connection arrived: the one prepended here runs just
 * before it and the one appended just after, so only those aborts carry no stack.
 */
function abortsWithoutStacks(socket: LaneSocket): void {
  if (!socket.prependOnceListener || !socket.once) return;
  let saved: number | undefined;
  socket.prependOnceListener('close', () => {
    saved = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
  });
  const restore = (): void => {
    if (saved === undefined) return;
    Error.stackTraceLimit = saved;
    saved = undefined;
  };
  socket.once('close', restore);
  // Should a listener between the two throw, the limit still comes back before anything else runs.
  socket.prependOnceListener('close', () => process.nextTick(restore));
}

export class Lane {
  private busy = false;
  private readonly queue: LaneUser[] = [];
  /** Requests of the connection arrived and not yet answered (served, queued, or still uploading). */
  open = 0;
  /** The lane stopped reading its socket because it is full. */
  private paused = false;
  /** The connection overflowed: its 429 and close are on their way, later requests get nothing made for them. */
  closing = false;

  constructor(private readonly socket: LaneSocket | null = null) {}

  /**
   * A request of the connection arrived: true when it may go on (counted open
   * until `depart`), false when 1 + PIPELINE_DEPTH are open already — this one
   * is the connection's last (its 429), nothing more of it is read.
   */
  arrive(): boolean {
    if (this.closing || this.open > PIPELINE_DEPTH) {
      if (!this.closing && this.socket) abortsWithoutStacks(this.socket);
      this.closing = true;
      this.socket?.pause();
      return false;
    }
    this.open++;
    if (this.open > PIPELINE_DEPTH && !this.paused) {
      this.paused = true;
      this.socket?.pause();
    }
    return true;
  }

  /**
   * Start `user` now, or when the requests before it on this connection
   * finish. No allocation when the lane is free: the common case of one
   * request at a time. At most PIPELINE_DEPTH wait (arrive bounds them).
   */
  enter(user: LaneUser): void {
    if (!this.busy) {
      this.busy = true;
      user.startTurn();
      return;
    }
    this.queue.push(user);
  }

  /** A request that arrived has its answer (or its client left); `held`: it held the lane, the next one starts. */
  depart(held: boolean): void {
    this.open--;
    if (held) this.next();
    if (this.paused && this.open <= PIPELINE_DEPTH) {
      this.paused = false;
      // Node's server pauses the socket itself while its answers back up (`_paused`): that pause is its to lift.
      if (!this.closing && this.socket && !this.socket.destroyed && this.socket._paused !== true) this.socket.resume();
    }
  }

  private next(): void {
    for (let u = this.queue.shift(); u; u = this.queue.shift()) {
      if (u.leftLane) continue;
      u.startTurn();
      return;
    }
    this.busy = false;
  }

  /** Requests waiting for their turn (for tests and the bound's proof). */
  get queued(): number {
    return this.queue.length;
  }
}

const lanes = new WeakMap<object, Lane>();

/** Whether `socket` overflowed its lane: a request still parsed from its last bytes is dropped with the connection. */
export function isClosingLane(socket: object): boolean {
  return lanes.get(socket)?.closing === true;
}

export function laneOf(socket: LaneSocket & object): Lane {
  let lane = lanes.get(socket);
  if (!lane) lanes.set(socket, (lane = new Lane(socket)));
  return lane;
}
