// A request body as it arrives, held compactly. A small body (one chunk, nearly
// every request) is kept as the chunk Node read, without a copy. A body that
// comes in many small pieces — a slow or hostile client writes a few KiB at a
// time — is copied into slabs instead of kept as thousands of small Buffers: each
// socket read pins a malloc'd block of its own, and thousands of them fragment the
// heap so that the process holds far more than the bytes it was sent. A piece of
// 16 KiB or more is kept as it came (Node's parser hands each its own copy):
// copying it too made 16 MB/s of garbage under bench:router's flood, which V8
// lets pile up to its external-memory limit (~64 MiB) before collecting it. A new slab
// is an eighth of the body so far (at least 4 KiB, at most 64 KiB), so the room
// held beyond the bytes received stays under 4 KiB or an eighth of the body.
// `held` is what the body pins, slack included: what --max-buffered counts
// (budget.ts), so the cap bounds the memory and not only the bytes received.

import type { BodyBudget, BodyHolder } from './budget.js';

const MIN_SLAB = 4 * 1024;
const SLAB = 64 * 1024;
/** A piece this large is kept as Node handed it (its own block, not a slice of a shared one): copying it would only make garbage. */
const KEEP = 16 * 1024;

export class BodyBuffer {
  private parts: Buffer[] = [];
  /** Bytes of the body received. */
  size = 0;
  /** Bytes this body pins: what it received plus its slab's unused room. */
  held = 0;
  private slab: Buffer | null = null;
  private used = 0;

  push(chunk: Buffer): void {
    if (this.size === 0) {
      this.size = chunk.length;
      this.held = chunk.length;
      this.parts.push(chunk);
      return;
    }
    const first = this.parts.length === 1 ? this.parts[0] : undefined;
    if (this.slab === null && first !== undefined && first.length < KEEP) {
      // A second piece: the first one moves into a slab too, so small pieces never pile up.
      this.parts.pop();
      this.size = 0;
      this.held = 0;
      this.copy(first, chunk.length);
    }
    if (chunk.length >= KEEP) {
      this.seal();
      this.parts.push(chunk);
      this.size += chunk.length;
      this.held += chunk.length;
    } else this.copy(chunk, 0);
  }

  /** The whole body as one Buffer (no copy when it came in one piece). */
  take(): Buffer {
    this.seal();
    const parts = this.parts;
    this.parts = [];
    this.held = 0;
    const only = parts.length === 1 ? parts[0] : undefined;
    return only ?? Buffer.concat(parts, this.size);
  }

  /** Copy `chunk` into slabs; `coming` = bytes known to follow at once (sizes the first slab). */
  private copy(chunk: Buffer, coming: number): void {
    let at = 0;
    this.size += chunk.length;
    while (at < chunk.length) {
      if (this.slab === null || this.used === this.slab.length) {
        this.seal();
        // allocUnsafeSlow: a block of its own, never a slice of Node's shared pool that would pin the whole pool.
        this.slab = Buffer.allocUnsafeSlow(Math.min(SLAB, Math.max(MIN_SLAB, Math.floor((this.size + coming) / 8))));
        this.held += this.slab.length;
        this.used = 0;
      }
      const n = chunk.copy(this.slab, this.used, at);
      this.used += n;
      at += n;
    }
  }

  /** The current slab joins the parts, cut to what it holds (its unused room stays counted: the block is still there). */
  private seal(): void {
    if (this.slab !== null && this.used > 0) this.parts.push(this.slab.subarray(0, this.used));
    this.slab = null;
    this.used = 0;
  }
}

/**
 * Add `chunk` to `h`'s body and count in `budget` what the body pins more
 * (slab room included); false when `h` itself was refused to make room.
 */
export function pushCounted(budget: BodyBudget, h: BodyHolder, body: BodyBuffer, chunk: Buffer): boolean {
  const before = body.held;
  body.push(chunk);
  const grew = body.held - before;
  return grew === 0 || budget.take(h, grew);
}
