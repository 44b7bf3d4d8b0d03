// The 15-digit limit of hostlist numbers (src/config/hostlist.ts): either
// bound past it is an error naming the limit; 15 digits are counted exactly.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { expandHostlist } from '../../src/config/hostlist.js';

test('numbers of 15 digits expand exactly', () => {
  assert.equal(expandHostlist('n[100000000000000]'), { ok: true, names: ['n100000000000000'] });
  assert.equal(expandHostlist('n[99999999999999-100000000000000]'), { ok: true, names: ['n99999999999999', 'n100000000000000'] });
});

test('a lower or an upper bound of more than 15 digits is an error naming the limit', () => {
  assert.equal(expandHostlist('n[0000000000000001-2]'), {
    ok: false,
    error: "malformed hostlist 'n[0000000000000001-2]': a number of more than 15 digits",
  });
  assert.equal(expandHostlist('n[1-9999999999999999]'), {
    ok: false,
    error: "malformed hostlist 'n[1-9999999999999999]': a number of more than 15 digits",
  });
});

test.run();
