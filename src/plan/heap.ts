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
    const top = items[0];
    const last = items.pop();
    if (top === undefined || last === undefined) return undefined;
    if (items.length > 0) {
      items[0] = last;
      this.down(0);
    }
    return top;
  }

  private up(i: number): void {
    const items = this.items;
    const item = items[i];
    if (item === undefined) return;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const above = items[parent];
      if (above === undefined || !this.less(item, above)) break;
      items[i] = above;
      i = parent;
    }
    items[i] = item;
  }

  private down(i: number): void {
    const items = this.items;
    const item = items[i];
    if (item === undefined) return;
    for (;;) {
      // Past the end there is no child: an index beyond the array reads undefined.
      let child = 2 * i + 1;
      let below = items[child];
      if (below === undefined) break;
      const right = items[child + 1];
      if (right !== undefined && this.less(right, below)) {
        child++;
        below = right;
      }
      if (!this.less(below, item)) break;
      items[i] = below;
      i = child;
    }
    items[i] = item;
  }
}
