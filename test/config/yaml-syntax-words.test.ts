// The plain-words syntax messages (docs/config.md) that each need a file of
// their own to show up: which quotes and brackets count as closed, the rarer
// error kinds, and where an error at the end of the input is shown.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseYamlSource } from '../../src/config/yaml-source.js';

/** `line:col: message` of the file's one problem, or 'ok'. */
function problem(text: string): string {
  const r = parseYamlSource('f.yaml', text, 'a mapping');
  return r.ok ? 'ok' : `${r.error.line}:${r.error.col}: ${r.error.message}`;
}

/** Quotes and brackets closed before the one left open. */
const CLOSED = `a: 'x'\nb: "y"\nc: ""\nd: ''\ne: 'it''s'\nf: "x\\\\"\ng: {h: 1}\ni: [j]\nk: 'end'''\n`;
/** Eleven lines above the one with the error. */
const ABOVE = Array.from({ length: 11 }, (_, i) => `k${i}: v\n`).join('');

/** A test of `rule`: each text has the one problem given with it, as `line:col: message`. */
function wordingRule(rule: string, ...cases: [text: string, problem: string][]) {
  test(rule, () => {
    for (const [text, want] of cases) assert.is(problem(text), want, JSON.stringify(text.slice(-40)));
  });
}

wordingRule(
  'quotes and brackets that are closed are not blamed for a later unclosed one',
  [`${CLOSED}l: [m\n`, '10:4: unclosed bracket: the list that starts with [ here has no closing ]'],
  [`${CLOSED}l: {m: 1\nn: 1\n`, '10:4: unclosed bracket: the mapping that starts with { here has no closing }'],
  [`${CLOSED}l: "m\n`, '10:4: unclosed quote: the " that starts here is never closed'],
);

wordingRule(
  "a quote escaped inside its string does not close it: \\\" in \"…\", '' in '…'",
  ['a: "it\\"\n', '1:4: unclosed quote: the " that starts here is never closed'],
  ['a: "x\\\\\\"\n', '1:4: unclosed quote: the " that starts here is never closed'],
  ["a: 'it''\n", "1:4: unclosed quote: the ' that starts here is never closed"],
);

wordingRule(
  'a quote or bracket left open where a key starts is found as well as one in a value',
  ['a: 1\n"b: 2\nc: 3\n', '2:1: unclosed quote: the " that starts here is never closed'],
  ['x: 1\n[a, b: 1\n', '2:1: unclosed bracket: the list that starts with [ here has no closing ]'],
);

// A string left open on the last line, with no newline after it, is one yaml itself lets through.
wordingRule(
  'unclosed quotes are looked for only behind the errors they cause: text after a value, not a duplicate key',
  ['a: "x" y\nb: "z\\"', '2:4: unclosed quote: the " that starts here is never closed'],
  ['a: 1\na: "x\\"', "2:1: duplicate key 'a': a key may appear once in a mapping"],
);

wordingRule(
  'a bracket closed by the wrong kind of bracket is unclosed, even alone on its line',
  ['a: [b}\n', '1:4: unclosed bracket: the list that starts with [ here has no closing ]'],
  ['a: {b]\n', '1:4: unclosed bracket: the mapping that starts with { here has no closing }'],
  ['a: {\nb: 1}\n', '1:4: unclosed bracket: the mapping that starts with { here has no closing }'],
);

wordingRule(
  'the rarer mistakes are worded: empty alias, bad escape, text after a value, a long key',
  ['a: *\n', '1:4: a value that starts with * is an alias: put it in quotes'],
  ['a: "x\\q"\n', `1:6: bad escape in a "…" string: write \\\\ for a backslash, or use '…' quotes`],
  ['a: "x" y\n', '1:8: unexpected text after a value: put the whole value in quotes'],
  [`${'k'.repeat(1030)}: 1\n`, '1:1: a key longer than 1024 characters'],
);

wordingRule(
  'a duplicate key is named without the spaces before its colon, and an empty one is not named',
  ['a : 1\na : 2\n', "2:1: duplicate key 'a': a key may appear once in a mapping"],
  [': 1\n: 2\n', '2:1: duplicate key: a key may appear once in a mapping'],
);

wordingRule("any other error is yaml's first line without its own position, at that position", [
  `${ABOVE}the_key_x: !x!y 1\n`,
  '12:12: invalid YAML: Could not resolve tag: !x!y',
]);

wordingRule('an error at the end of the input is shown at the end of the last line written, not on a blank line past it', [
  '%YAML 1.2\n\n\n',
  '1:10: invalid YAML: Missing directives-end indicator line',
]);

test.run();
