// A request body as it arrives, held compactly. A small body (one chunk, nearly
// every request) is kept as the chunk Node read, without a copy. A body that
// comes in many pieces — a slow or hostile client writes a few KiB at a time — is
// copied into slabs instead of kept as thousands of small Buffers: each small
// socket read pins a malloc'd block of its own, and thousands of them fragment the
// heap so that the process holds far more than the bytes it was sent. A new slab
// is as large as the body so far (at least 4 KiB, at most 64 KiB), so the room
// held beyond the bytes received stays under both the body's size and 64 KiB.

const MIN_SLAB = 4 * 1024;
const SLAB = 64 * 1024;

export class BodyBuffer {
  private parts: Buffer[] = [];
  /** Bytes of the body received. */
  size = 0;
  private slab: Buffer | null = null;
  private used = 0;

  push(chunk: Buffer): void {
    if (this.size === 0) {
      this.size = chunk.length;
      this.parts.push(chunk);
      return;
    }
    const first = this.parts.length === 1 ? this.parts[0] : undefined;
    if (this.slab === null && first !== undefined && first.length < SLAB) {
      // A second piece: the first one moves into a slab too, so small pieces never pile up.
      this.parts.pop();
      this.size = 0;
      this.copy(first, chunk.length);
    }
    if (chunk.length >= SLAB) {
      this.seal();
      this.parts.push(chunk);
      this.size += chunk.length;
    } else this.copy(chunk, 0);
  }

  /** The whole body as one Buffer (no copy when it came in one piece). */
  take(): Buffer {
    this.seal();
    const parts = this.parts;
    this.parts = [];
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
        this.slab = Buffer.allocUnsafeSlow(Math.min(SLAB, Math.max(MIN_SLAB, this.size + coming)));
        this.used = 0;
      }
      const n = chunk.copy(this.slab, this.used, at);
      this.used += n;
      at += n;
    }
  }

  /** The current slab joins the parts, cut to what it holds. */
  private seal(): void {
    if (this.slab !== null && this.used > 0) this.parts.push(this.slab.subarray(0, this.used));
    this.slab = null;
    this.used = 0;
  }
}
