// Edges of compressHostlist (src/text/compress-hostlist.ts): suffixes,
// unpadded numbers of different lengths, names a hostlist cannot carry, and
// the order of the result.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compressHostlist } from '../../src/text/compress-hostlist.js';

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
