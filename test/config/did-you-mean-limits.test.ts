// The bounds of "did you mean" (docs/config.md): a word longer than 64
// letters, or a choice among more than 1000 names, gets no suggestion; a
// known word three letters longer is still considered.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { closest } from '../../src/config/did-you-mean.js';

test('a word of 64 letters still gets a suggestion, one of 65 gets none', () => {
  const w64 = 'a'.repeat(63) + 'b';
  assert.is(closest(w64, ['a'.repeat(64)]), 'a'.repeat(64));
  const w65 = 'a'.repeat(64) + 'b';
  assert.is(closest(w65, ['a'.repeat(65)]), undefined);
});

test('a choice among 1000 names still gets a suggestion, among 1001 none', () => {
  const names = Array.from({ length: 999 }, (_, i) => `name${i}`);
  assert.is(closest('fabirc', [...names, 'fabric']), 'fabric');
  assert.is(closest('fabirc', [...names, 'x', 'fabric']), undefined);
});

test('a known word three letters longer, not starting with the word, is within three edits of it', () => {
  assert.is(closest('abcdefghi', ['abcXdefYghiZ']), 'abcXdefYghiZ');
});

test('a swap counts as one edit only for two neighbours that trade places', () => {
  // "ab" -> "ca" is two edits (no swap in it): with limit 1, nothing is suggested.
  assert.is(closest('ab', ['ca']), undefined);
  assert.is(closest('xab', ['xca']), undefined);
});

test.run();
