// One request of a client connection upstream at a time (docs/operations.md#limits).
// HTTP/1.1 pipelining lets a client send many requests before reading any
// answer; Node's server hands every one to the router at once, and the answers
// must still leave in order. Without a lane, one connection could hold as many
// engine sockets (and engine slots) as it pipelines; with it, the next request
// of a connection starts only when the one before it has finished, and a
// connection that pipelines more than PIPELINE_DEPTH is refused the rest.
// A request queued here is neither in flight nor waiting: it is the client's.

/** Requests of one connection queued behind the one being served. */
export const PIPELINE_DEPTH = 16;

interface Turn {
  go: () => void;
  cancelled: boolean;
}

export class Lane {
  private busy = false;
  private readonly queue: Turn[] = [];

  /** Run `go` now or when the requests before it on this connection finish; null when the queue is full. */
  enter(go: () => void): Turn | null {
    const turn: Turn = { go, cancelled: false };
    if (!this.busy) {
      this.busy = true;
      go();
      return turn;
    }
    if (this.queue.length >= PIPELINE_DEPTH) return null;
    this.queue.push(turn);
    return turn;
  }

  /** The request holding the lane finished (answered, or its client left). */
  leave(): void {
    for (let next = this.queue.shift(); next; next = this.queue.shift()) {
      if (next.cancelled) continue;
      next.go();
      return;
    }
    this.busy = false;
  }
}

const lanes = new WeakMap<object, Lane>();

export function laneOf(socket: object): Lane {
  let lane = lanes.get(socket);
  if (!lane) lanes.set(socket, (lane = new Lane()));
  return lane;
}
