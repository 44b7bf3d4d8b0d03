// walkValues (src/config/value-walk.ts): every value once, in file order, with
// its path and the key it sits under (none in a list); top-level x- keys skipped.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { walkValues } from '../../src/config/value-walk.js';

test('every value is visited once in order, with its path, its key, and no key for a list item; only top-level x- keys are skipped', () => {
  const seen: [unknown, unknown[], string | undefined][] = [];
  walkValues({ 'x-skip': { a: 1 }, a: [10, { 'x-kept': 2 }], b: null }, (value, path, key) => seen.push([value, path(), key]));
  assert.equal(seen, [
    [[10, { 'x-kept': 2 }], ['a'], 'a'],
    [10, ['a', 0], undefined],
    [{ 'x-kept': 2 }, ['a', 1], undefined],
    [2, ['a', 1, 'x-kept'], 'x-kept'],
    [null, ['b'], 'b'],
  ]);
});

test.run();
