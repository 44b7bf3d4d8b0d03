// compressHostlist (src/config/compress-hostlist.ts): the shortest hostlist that
// expands back to the same names; suffixes, unpadded numbers of different
// lengths, names a hostlist cannot carry, and the order of the result.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compressHostlist } from '../../src/text/compress-hostlist.js';
import { expandHostlist } from '../../src/config/hostlist.js';

const expand = (list: string) => {
  const r = expandHostlist(list);
  if (!r.ok) throw new Error(r.error);
  return r.names;
};

test('consecutive names become ranges, gaps become commas, zero padding is kept', () => {
  assert.is(compressHostlist(['gpu-a01', 'gpu-a02', 'gpu-a03', 'gpu-a04', 'gpu-a07']), 'gpu-a[01-04,07]');
  assert.is(compressHostlist(['gpu-b13', 'gpu-a01', 'gpu-b12']), 'gpu-a01,gpu-b[12-13]');
  assert.is(compressHostlist(['n1', 'n2', 'n10']), 'n[1-2,10]');
  assert.is(compressHostlist(['gpu09', 'gpu10', 'gpu11']), 'gpu[09-11]', '10 joins the width-2 list of 09');
  assert.is(compressHostlist(['llama-3.1-70b-3', 'llama-3.1-70b-4', 'llama-3.1-70b-12']), 'llama-3.1-70b-[3-4,12]');
  assert.is(compressHostlist(['r1n01', 'r1n02', 'r2n01']), 'r1n[01-02],r2n01');
  assert.is(compressHostlist(['login', 'gpu1']), 'gpu1,login');
  assert.is(compressHostlist([]), '');
});

test('expanding the compressed list gives back exactly the names, for many random sets', () => {
  let seed = 7;
  const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
  for (let round = 0; round < 200; round++) {
    const names = new Set<string>();
    const count = 1 + rnd(60);
    for (let i = 0; i < count; i++) {
      const n = rnd(120);
      const shape = rnd(5);
      names.add(
        shape === 0
          ? `gpu-${String(n).padStart(3, '0')}`
          : shape === 1
            ? `gpu-${n}`
            : shape === 2
              ? `r${rnd(3)}n${String(n).padStart(2, '0')}`
              : shape === 3
                ? `m-${n}`
                : `x${n}.ib`,
      );
    }
    const list = compressHostlist(names);
    assert.equal(expand(list).sort(), [...names].sort(), list);
  }
});

test('a thousand nodes in one fabric are one short list', () => {
  const names = Array.from({ length: 1000 }, (_, i) => `hgx-${String(i + 1).padStart(4, '0')}`);
  assert.is(compressHostlist(names), 'hgx-[0001-1000]');
});

test('text after the last number is kept as a suffix: x[1-2].ib, n[1-3,5]x', () => {
  assert.is(compressHostlist(['x1.ib', 'x2.ib']), 'x[1-2].ib');
  assert.is(compressHostlist(['n3x', 'n1x', 'n2x', 'n5x']), 'n[1-3,5]x');
});

test('unpadded numbers of different lengths share one list: n[5,12], n[0,10]', () => {
  assert.is(compressHostlist(['n5', 'n12']), 'n[5,12]');
  assert.is(compressHostlist(['n0', 'n10']), 'n[0,10]');
});

test('names with characters a hostlist cannot carry are listed bare, never bracketed', () => {
  assert.is(compressHostlist(['a b1', 'a b2']), 'a b1,a b2');
  assert.is(compressHostlist(['n1 x', 'n2 x']), 'n1 x,n2 x');
  assert.is(compressHostlist(['[n1]', 'n2']), '[n1],n2');
});

test('numbers of up to 15 digits are grouped; longer ones are listed as written', () => {
  assert.is(compressHostlist(['n100000000000000', 'n100000000000001']), 'n[100000000000000-100000000000001]');
  assert.is(compressHostlist(['n9999999999999999']), 'n9999999999999999');
});

test('groups are ordered by prefix, not by their numbers: a2 before b1', () => {
  assert.is(compressHostlist(['b1', 'a2']), 'a2,b1');
  assert.is(compressHostlist(['gpu-b1', 'gpu-a2', 'gpu-a3']), 'gpu-a[2-3],gpu-b1');
});

test('a bare name that sorts level with a group keeps its place after the group', () => {
  assert.is(compressHostlist(['n00000000000000000001', 'n1']), 'n1,n00000000000000000001');
});

test.run();
