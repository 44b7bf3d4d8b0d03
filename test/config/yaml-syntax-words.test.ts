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

test('quotes and brackets that are closed are not blamed for a later unclosed one', () => {
  const closed = `a: 'x'\nb: "y"\nc: ""\nd: ''\ne: 'it''s'\nf: "x\\\\"\ng: {h: 1}\ni: [j]\nk: 'end'''\n`;
  assert.is(problem(`${closed}l: [m\n`), '10:4: unclosed bracket: the list that starts with [ here has no closing ]');
  assert.is(problem(`${closed}l: {m: 1\nn: 1\n`), '10:4: unclosed bracket: the mapping that starts with { here has no closing }');
  assert.is(problem(`${closed}l: "m\n`), '10:4: unclosed quote: the " that starts here is never closed');
});

test("a quote escaped inside its string does not close it: \\\" in \"…\", '' in '…'", () => {
  assert.is(problem('a: "it\\"\n'), '1:4: unclosed quote: the " that starts here is never closed');
  assert.is(problem('a: "x\\\\\\"\n'), '1:4: unclosed quote: the " that starts here is never closed');
  assert.is(problem("a: 'it''\n"), "1:4: unclosed quote: the ' that starts here is never closed");
});

test('a quote or bracket left open where a key starts is found as well as one in a value', () => {
  assert.is(problem('a: 1\n"b: 2\nc: 3\n'), '2:1: unclosed quote: the " that starts here is never closed');
  assert.is(problem('x: 1\n[a, b: 1\n'), '2:1: unclosed bracket: the list that starts with [ here has no closing ]');
});

test('unclosed quotes are looked for only behind the errors they cause: text after a value, not a duplicate key', () => {
  // A string left open on the last line, with no newline after it, is one yaml itself lets through.
  assert.is(problem('a: "x" y\nb: "z\\"'), '2:4: unclosed quote: the " that starts here is never closed');
  assert.is(problem('a: 1\na: "x\\"'), "2:1: duplicate key 'a': a key may appear once in a mapping");
});

test('a bracket closed by the wrong kind of bracket is unclosed, even alone on its line', () => {
  assert.is(problem('a: [b}\n'), '1:4: unclosed bracket: the list that starts with [ here has no closing ]');
  assert.is(problem('a: {b]\n'), '1:4: unclosed bracket: the mapping that starts with { here has no closing }');
  assert.is(problem('a: {\nb: 1}\n'), '1:4: unclosed bracket: the mapping that starts with { here has no closing }');
});

test('the rarer mistakes are worded: empty alias, bad escape, text after a value, a long key', () => {
  assert.is(problem('a: *\n'), '1:4: a value that starts with * is an alias: put it in quotes');
  assert.is(problem('a: "x\\q"\n'), `1:6: bad escape in a "…" string: write \\\\ for a backslash, or use '…' quotes`);
  assert.is(problem('a: "x" y\n'), '1:8: unexpected text after a value: put the whole value in quotes');
  assert.is(problem(`${'k'.repeat(1030)}: 1\n`), '1:1: a key longer than 1024 characters');
});

test('a duplicate key is named without the spaces before its colon, and an empty one is not named', () => {
  assert.is(problem('a : 1\na : 2\n'), "2:1: duplicate key 'a': a key may appear once in a mapping");
  assert.is(problem(': 1\n: 2\n'), '2:1: duplicate key: a key may appear once in a mapping');
});

test("any other error is yaml's first line without its own position, at that position", () => {
  const above = Array.from({ length: 11 }, (_, i) => `k${i}: v\n`).join('');
  assert.is(problem(`${above}the_key_x: !x!y 1\n`), '12:12: invalid YAML: Could not resolve tag: !x!y');
});

test('an error at the end of the input is shown at the end of the last line written, not on a blank line past it', () => {
  assert.is(problem('%YAML 1.2\n\n\n'), '1:10: invalid YAML: Missing directives-end indicator line');
});

test.run();
