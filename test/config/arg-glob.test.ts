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

/** A test of `rule`: each glob matches every arg of its first list and none of its second. */
function matchRule(rule: string, ...cases: [glob: string, matching: string[], missing: string[]][]) {
  test(rule, () => {
    for (const [glob, matching, missing] of cases) {
      for (const arg of matching) assert.ok(matches(glob, arg), `${glob} matches ${JSON.stringify(arg)}`);
      for (const arg of missing) assert.not.ok(matches(glob, arg), `${glob} does not match ${JSON.stringify(arg)}`);
    }
  });
}

matchRule('a plain glob matches only the whole arg', ['--max-model-len', ['--max-model-len'], ['--max-model-len=1', 'x--max-model-len']]);

matchRule(
  '* matches any run, ? one character',
  ['--max-model-len=*', ['--max-model-len=32768', '--max-model-len='], []],
  ['--x=?', ['--x=1'], ['--x=12']],
  ['*', [''], []],
);

matchRule(
  'a class matches one character of it: "[0-9]*" is an arg that starts with a digit',
  ['[0-9]*', ['32768'], ['--trust-remote-code']],
  ['0.[0-9][0-9]', ['0.95'], []],
  ['[a-cx]', ['x'], ['d']],
);

matchRule('[!…] and [^…] match one character not in the class', ['[!-]*', ['value'], ['--flag']], ['[^-]*', [], ['-x']]);

matchRule('a backslash takes the next character as itself', ['a\\*', ['a*'], ['ab']], ['[\\]]', [']'], []]);

matchRule('* matches across newlines and every character: nothing slips past a glob unseen', ['--x=*', ['--x=a\nb'], []], ['--x', [], ['--x\n']]);

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
