// Bounded memory under abuse (docs/operations.md#limits, --max-buffered): the request
// bytes the router holds, across all requests, stay under a cap. A body is held
// from its first byte until its exchange ends (a retry needs it). When a chunk
// would cross the cap, the requests still *receiving* their bodies are refused
// largest first, until the total fits: a flood of slow, large uploads loses its
// biggest members, while a normal small request that arrives meanwhile still
// gets through. Bodies already sent to an engine are never refused here.

export interface BodyHolder {
  /** Bytes this request holds now. */
  held: number;
  /** Refuse the request (503) and let go of its bytes; called at most once. */
  evict(): void;
}

export class BodyBudget {
  used = 0;
  /** Requests still receiving their body: the ones that may be refused. */
  private readonly receiving = new Set<BodyHolder>();

  constructor(readonly max: number) {}

  /** Count `n` more bytes held by `h`; false when `h` itself was refused to make room. */
  take(h: BodyHolder, n: number): boolean {
    if (h.held === 0) this.receiving.add(h);
    h.held += n;
    this.used += n;
    if (this.used <= this.max) return true;
    // `h` is among the receiving, so this ends: with room, or with `h` refused
    // (when what fills the cap is bodies already sent on, the newcomer is the one to wait).
    while (this.used > this.max) {
      let largest = h;
      for (const r of this.receiving) if (r.held > largest.held) largest = r;
      this.release(largest);
      largest.evict();
      if (largest === h) return false;
    }
    return true;
  }

  /** The body is complete: it can no longer be refused, only released. */
  received(h: BodyHolder): void {
    this.receiving.delete(h);
  }

  /** Let go of everything `h` holds. */
  release(h: BodyHolder): void {
    this.receiving.delete(h);
    this.used -= h.held;
    h.held = 0;
  }
}
