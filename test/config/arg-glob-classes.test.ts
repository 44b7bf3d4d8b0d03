// Classes and stars in allowArgs globs (src/config/arg-glob.ts): the edges of
// `[…]` as shells read them, and a star at the start of a glob.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compileGlob, globMatches } from '../../src/config/arg-glob.js';

function compiled(glob: string) {
  const c = compileGlob(glob);
  if (!c.ok) throw new Error(`${glob}: ${c.error}`);
  return c.glob;
}

/** The characters of `alphabet` that the one-character glob matches. */
function members(glob: string, alphabet = 'abcmxz!^]\\-+,A'): string {
  const g = compiled(glob);
  return [...alphabet].filter((c) => globMatches(g, c)).join('');
}

/** A test of `rule`: each one-character glob matches exactly the members of the alphabet given with it. */
function classRule(rule: string, ...cases: [glob: string, members: string][]) {
  test(rule, () => {
    for (const [glob, want] of cases) assert.is(members(glob), want, glob);
  });
}

classRule('a class is a set of single characters unless a - joins two: [abc] is a, b and c', ['[abc]', 'abc'], ['[xab]', 'abx']);

classRule('a range includes both its ends, and a range of one character is allowed: [a-c], [a-a]', ['[a-c]', 'abc'], ['[a-a]', 'a']);

classRule('a - first or last in a class is itself: [a-] and [-a]', ['[a-]', 'a-'], ['[-a]', 'a-']);

classRule(
  'a ] first in a class, or first after ! or ^, is a member, as in shells',
  ['[]a]', 'a]'],
  ['[]]', ']'],
  ['[!]a]', 'bcmxz!^\\-+,A'],
  ['[^]a]', 'bcmxz!^\\-+,A'],
);

classRule(
  '! or ^ negates only as the first character of a class; ! is not itself excluded by [!a]',
  ['[!a]', 'bcmxz!^]\\-+,A'],
  ['[^a]', 'bcmxz!^]\\-+,A'],
  ['[a!]', 'a!'],
  ['[a^]', 'a^'],
);

classRule(
  'a backslash in a class takes the next character as itself and is not a member',
  ['[\\]]', ']'],
  ['[\\\\]', '\\'],
  ['[a\\-z]', 'az-'],
  ['[+-\\-]', '-+,'],
  ['[a-\\z]', 'abcmxz'],
);

test('a run of stars is one star', () => {
  assert.is(compiled('a***').tokens.length, 2);
  assert.is(compiled('*a*').tokens.length, 3);
  assert.ok(globMatches(compiled('a***'), 'abc'));
});

test('a star first in the glob matches any start: *.json', () => {
  assert.ok(globMatches(compiled('*.json'), 'x.json'));
  assert.ok(globMatches(compiled('*b'), 'ab'));
  assert.not.ok(globMatches(compiled('*b'), 'ba'));
});

test.run();
