import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compileGlob, globMatches } from '../../src/config/arg-glob.js';

function matches(glob: string, arg: string): boolean {
  const c = compileGlob(glob);
  if (!c.ok) throw new Error(`${glob}: ${c.error}`);
  return globMatches(c.glob, arg);
}

function error(glob: string): string {
  const c = compileGlob(glob);
  if (c.ok) throw new Error(`expected ${glob} to be malformed`);
  return c.error;
}

test('a plain glob matches only the whole arg', () => {
  assert.ok(matches('--max-model-len', '--max-model-len'));
  assert.not.ok(matches('--max-model-len', '--max-model-len=1'));
  assert.not.ok(matches('--max-model-len', 'x--max-model-len'));
});

test('* matches any run, ? one character', () => {
  assert.ok(matches('--max-model-len=*', '--max-model-len=32768'));
  assert.ok(matches('--max-model-len=*', '--max-model-len='));
  assert.ok(matches('--x=?', '--x=1'));
  assert.not.ok(matches('--x=?', '--x=12'));
  assert.ok(matches('*', ''));
});

test('a class matches one character of it: "[0-9]*" is an arg that starts with a digit', () => {
  assert.ok(matches('[0-9]*', '32768'));
  assert.not.ok(matches('[0-9]*', '--trust-remote-code'));
  assert.ok(matches('0.[0-9][0-9]', '0.95'));
  assert.ok(matches('[a-cx]', 'x'));
  assert.not.ok(matches('[a-cx]', 'd'));
});

test('[!…] and [^…] match one character not in the class', () => {
  assert.ok(matches('[!-]*', 'value'));
  assert.not.ok(matches('[!-]*', '--flag'));
  assert.not.ok(matches('[^-]*', '-x'));
});

test('a backslash takes the next character as itself', () => {
  assert.ok(matches('a\\*', 'a*'));
  assert.not.ok(matches('a\\*', 'ab'));
  assert.ok(matches('[\\]]', ']'));
});

test('* matches across newlines and every character: nothing slips past a glob unseen', () => {
  assert.ok(matches('--x=*', '--x=a\nb'));
  assert.not.ok(matches('--x', '--x\n'));
});

test('malformed globs are errors, never exceptions', () => {
  assert.is(error('[0-9'), 'has a [ with no closing ]');
  assert.is(error('[9-0]'), 'has a range 9-0 that runs backwards');
  assert.is(error('x\\'), 'ends with a lone \\');
});

test('many stars against a long arg take linear-ish time, not exponential (no RegExp backtracking)', () => {
  // With a backtracking RegExp this pair takes minutes; the walk is length × length at most.
  assert.not.ok(matches('*a*a*a*a*a*a*a*a*a*a*b', 'a'.repeat(2000)));
});

test.run();
