// MinHeap (src/plan/heap.ts), placement's queue of candidate nodes: whatever
// was built from, pushed and popped, each pop is the least item left by the
// comparator; an empty heap pops undefined.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MinHeap } from '../../src/plan/heap.js';

/** A fixed pseudo-random sequence (LCG), so every run checks the same lists. */
function numbers(seed: number, count: number, range: number): number[] {
  const out: number[] = [];
  let x = seed;
  for (let i = 0; i < count; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out.push(x % range);
  }
  return out;
}

const less = (a: number, b: number) => a < b;
const drain = (h: MinHeap<number>) => {
  const out: number[] = [];
  for (let v = h.pop(); v !== undefined; v = h.pop()) out.push(v);
  return out;
};

test('built from a list (any size up to 40, with repeats), pops give the list in ascending order', () => {
  for (let n = 0; n <= 40; n++) {
    const list = numbers(n + 1, n, 10);
    const h = new MinHeap(less, [...list]);
    assert.is(h.size, n);
    assert.equal(
      drain(h),
      [...list].sort((a, b) => a - b),
      `n=${n}`,
    );
    assert.is(h.size, 0);
  }
});

test('pushed one by one, then popped: ascending; the comparator decides (a max-heap by reversing it)', () => {
  for (const seed of [3, 7, 11]) {
    const list = numbers(seed, 33, 100);
    const min = new MinHeap<number>(less);
    const max = new MinHeap<number>((a, b) => a > b);
    for (const v of list) {
      min.push(v);
      max.push(v);
    }
    assert.is(min.size, 33);
    assert.equal(
      drain(min),
      [...list].sort((a, b) => a - b),
    );
    assert.equal(
      drain(max),
      [...list].sort((a, b) => b - a),
    );
  }
});

test('pushes between pops (as placement does: pop the best, change it, push it back) keep every pop the least left', () => {
  const h = new MinHeap(less, numbers(5, 20, 50));
  const model = [...numbers(5, 20, 50)];
  const got: number[] = [];
  const want: number[] = [];
  for (const v of numbers(9, 30, 50)) {
    got.push(h.pop()!);
    model.sort((a, b) => a - b);
    want.push(model.shift()!);
    h.push(v + 10);
    model.push(v + 10);
  }
  assert.equal(got, want);
  assert.equal(
    drain(h),
    model.sort((a, b) => a - b),
  );
});

test('an empty heap pops undefined and has size 0; a single item comes back', () => {
  const h = new MinHeap<number>(less);
  assert.equal([h.size, h.pop()], [0, undefined]);
  h.push(4);
  assert.equal([h.size, h.pop(), h.size, h.pop()], [1, 4, 0, undefined]);
});

test.run();
