// src/config/raw.ts: the defensive readers a meaning check uses on a document
// the schema may already have refused. Each gives back a value only when it has
// the type asked for, and a harmless stand-in otherwise, so a check never
// crashes on a mistyped key.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { arr, int, num, obj, str } from '../../src/config/raw.js';

test('obj: a mapping is itself; null, an array, a string or a number reads as an empty mapping', () => {
  const m = { a: 1 };
  assert.is(obj(m), m);
  assert.equal(obj(null), {});
  assert.equal(obj(undefined), {});
  assert.equal(obj([1, 2]), {});
  assert.equal(obj('x'), {});
  assert.equal(obj(3), {});
});

test('arr: a list is itself; a mapping, a string or nothing reads as an empty list', () => {
  const l = [1, 'b'];
  assert.is(arr(l), l);
  assert.equal(arr({ 0: 'a', length: 1 }), []);
  assert.equal(arr('ab'), []);
  assert.equal(arr(undefined), []);
});

test('str: only a string is a string; a number, a boolean, null or a list is undefined (never coerced)', () => {
  assert.is(str('gpu-a01'), 'gpu-a01');
  assert.is(str(''), '');
  assert.is(str(5), undefined);
  assert.is(str(true), undefined);
  assert.is(str(null), undefined);
  assert.is(str(['a']), undefined);
});

test('int: only a whole number is an integer; a fraction, a numeric string, Infinity or NaN is undefined', () => {
  assert.is(int(8), 8);
  assert.is(int(0), 0);
  assert.is(int(-3), -3);
  assert.is(int(1.5), undefined);
  assert.is(int('8'), undefined);
  assert.is(int(Infinity), undefined);
  assert.is(int(NaN), undefined);
  assert.is(int(null), undefined);
});

test('num: only a finite number is a number; a numeric string, Infinity, -Infinity or NaN is undefined', () => {
  assert.is(num(0.25), 0.25);
  assert.is(num(7), 7);
  assert.is(num('0.25'), undefined);
  assert.is(num(Infinity), undefined);
  assert.is(num(-Infinity), undefined);
  assert.is(num(NaN), undefined);
  assert.is(num(true), undefined);
});

test.run();
