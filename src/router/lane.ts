// One request of a client connection upstream at a time (docs/operations.md#limits).
// HTTP/1.1 pipelining lets a client send many requests before reading any
// answer; Node's server hands every one to the router at once, and the answers
// must still leave in order. Without a lane, one connection could hold as many
// engine sockets (and engine slots) as it pipelines; with it, the next request
// of a connection starts only when the one before it has finished, and a
// connection that pipelines more than PIPELINE_DEPTH gets a 429 and a close
// after the ones queued before it (exchange.ts).
// A request queued here is neither in flight nor waiting: it is the client's.

/** Requests of one connection queued behind the one being served. */
export const PIPELINE_DEPTH = 16;

/** A request of the connection (exchange.ts): started when its turn comes, skipped when its client left first. */
export interface LaneUser {
  startTurn(): void;
  readonly leftLane: boolean;
}

export class Lane {
  private busy = false;
  private readonly queue: LaneUser[] = [];
  /** The connection overflowed: its 429 and close are on their way, later requests get nothing made for them. */
  closing = false;

  /**
   * Start `user` now (true) or when the requests before it on this connection
   * finish (true, queued); false when the queue is full. No allocation when
   * the lane is free: the common case of one request at a time.
   */
  enter(user: LaneUser): boolean {
    if (!this.busy) {
      this.busy = true;
      user.startTurn();
      return true;
    }
    if (this.queue.length >= PIPELINE_DEPTH) {
      this.closing = true;
      return false;
    }
    this.queue.push(user);
    return true;
  }

  /** The request holding the lane finished (answered, or its client left). */
  leave(): void {
    for (let next = this.queue.shift(); next; next = this.queue.shift()) {
      if (next.leftLane) continue;
      next.startTurn();
      return;
    }
    this.busy = false;
  }
}

const lanes = new WeakMap<object, Lane>();

/** Whether `socket` overflowed its lane: a request still parsed from its last bytes is dropped with the connection. */
export function isClosingLane(socket: object): boolean {
  return lanes.get(socket)?.closing === true;
}

export function laneOf(socket: object): Lane {
  let lane = lanes.get(socket);
  if (!lane) lanes.set(socket, (lane = new Lane()));
  return lane;
}
