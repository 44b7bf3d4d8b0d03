import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { errnoCode } from '../../src/util/errno.js';

test('an errno error answers its string code', () => {
  const err = Object.assign(new Error('no such file'), { code: 'ENOENT' });
  assert.is(errnoCode(err), 'ENOENT');
});

test('a value without a string code answers undefined, so a caller never matches a number or a missing code', () => {
  assert.is(errnoCode(new Error('plain')), undefined);
  assert.is(errnoCode(Object.assign(new Error('exit'), { code: 1 })), undefined);
  assert.is(errnoCode(null), undefined);
  assert.is(errnoCode(undefined), undefined);
  assert.is(errnoCode('ENOENT'), undefined);
});

test.run();
