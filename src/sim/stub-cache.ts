// A SIMULATION of an engine's prefix (KV) cache, for the stub engine and
// bench:routing: it shows what routing does to cache reuse, and is no model of
// any real engine's timing. The prompt is cut into blocks of `blockChars`
// characters (vLLM cuts into blocks of tokens); block i is named by a hash of
// blocks 0..i, so a block is only ever reused after the same whole prefix. The
// cache is an LRU of block names holding `capacityChars` worth of blocks. Time to
// first token = baseMs + uncached characters × msPerChar, and prefills queue for
// `slots` at once (a GPU computes few prefills at a time: that queue is what
// makes a hot replica slow).

export interface CacheModel {
  /** LRU capacity in prompt characters; 0 = nothing is ever cached. */
  capacityChars: number;
  blockChars: number;
  baseMs: number;
  msPerChar: number;
  /** Prefills computed at once; the rest wait. */
  slots: number;
}

export interface PrefillResult {
  promptChars: number;
  cachedChars: number;
  /** Time spent waiting for a prefill slot, then computing. */
  waitedMs: number;
  computeMs: number;
}

export class PrefixCache {
  private readonly lru = new Map<number, true>();
  private busy = 0;
  private readonly waiting: (() => void)[] = [];
  readonly totals = { prompts: 0, promptChars: 0, cachedChars: 0 };

  constructor(public model: CacheModel) {}

  /** Block names of `text`, chained: each depends on every block before it. Only whole blocks are named. */
  blockNames(text: string): number[] {
    const names: number[] = [];
    const b = Math.max(1, this.model.blockChars);
    let prev = 0x9e3779b1;
    for (let end = b; end <= text.length; end += b) {
      prev = chain(prev, text, end - b, end);
      names.push(prev);
    }
    return names;
  }

  /** How many leading characters of `text` the cache holds now (whole blocks). */
  cachedPrefix(names: number[]): number {
    let n = 0;
    for (const name of names) {
      if (!this.lru.has(name)) break;
      n++;
    }
    return n * this.model.blockChars;
  }

  /** Prefill `text`: wait for a slot, take the cached prefix, compute the rest (a timer), then cache every block. */
  async prefill(text: string): Promise<PrefillResult> {
    const queued = performance.now();
    await this.slot();
    try {
      const started = performance.now();
      const names = this.blockNames(text);
      const cachedChars = Math.min(text.length, this.cachedPrefix(names));
      const computeMs = this.model.baseMs + (text.length - cachedChars) * this.model.msPerChar;
      if (computeMs > 0) await new Promise((r) => setTimeout(r, computeMs));
      this.insert(names);
      this.totals.prompts++;
      this.totals.promptChars += text.length;
      this.totals.cachedChars += cachedChars;
      return { promptChars: text.length, cachedChars, waitedMs: started - queued, computeMs };
    } finally {
      this.release();
    }
  }

  private insert(names: number[]): void {
    const capacity = Math.floor(this.model.capacityChars / Math.max(1, this.model.blockChars));
    if (capacity === 0) return;
    for (const name of names) {
      this.lru.delete(name);
      this.lru.set(name, true);
    }
    // Least recently used first: a Map iterates in insertion order.
    for (const name of this.lru.keys()) {
      if (this.lru.size <= capacity) break;
      this.lru.delete(name);
    }
  }

  /** Prefills waiting for a slot now (the stub's vllm:num_requests_waiting). */
  get queued(): number {
    return this.waiting.length;
  }

  private slot(): Promise<void> {
    if (this.busy < Math.max(1, this.model.slots)) {
      this.busy++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next)
      next(); // the slot passes straight on
    else this.busy--;
  }
}

/** FNV-1a over text[from, to) seeded with the previous block's name, finalised: 32 bits per block, chained. */
function chain(seed: number, text: string, from: number, to: number): number {
  let h = (seed ^ 0x811c9dc5) >>> 0;
  for (let i = from; i < to; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
