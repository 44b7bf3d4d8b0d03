/**
 * A binary min-heap over a comparator. Placement pops the best node for a
 * model, changes only that node, and pushes it back: a heap keeps each
 * placement O(log nodes) instead of a scan of the whole fleet.
 */
export class MinHeap<T> {
  private readonly items: T[];

  constructor(
    private readonly less: (a: T, b: T) => boolean,
    items: T[] = [],
  ) {
    this.items = items;
    for (let i = (items.length >> 1) - 1; i >= 0; i--) this.down(i);
  }

  get size(): number {
    return this.items.length;
  }

  push(item: T): void {
    this.items.push(item);
    this.up(this.items.length - 1);
  }

  pop(): T | undefined {
    const items = this.items;
    if (items.length === 0) return undefined;
    const top = items[0]!;
    const last = items.pop()!;
    if (items.length > 0) {
      items[0] = last;
      this.down(0);
    }
    return top;
  }

  private up(i: number): void {
    const items = this.items;
    const item = items[i]!;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(item, items[parent]!)) break;
      items[i] = items[parent]!;
      i = parent;
    }
    items[i] = item;
  }

  private down(i: number): void {
    const items = this.items;
    const n = items.length;
    const item = items[i]!;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && this.less(items[child + 1]!, items[child]!)) child++;
      if (!this.less(items[child]!, item)) break;
      items[i] = items[child]!;
      i = child;
    }
    items[i] = item;
  }
}
