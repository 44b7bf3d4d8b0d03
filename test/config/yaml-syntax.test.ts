// YAML mistakes people make, each reported at the line that holds it, in
// plain words (issue #15): not the library's grammar terms, not the line above.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TINY_CLUSTER, problemsOf } from '../fixtures/index.js';

function modelsError(models: string): string[] {
  return problemsOf(TINY_CLUSTER, models);
}

const HEAD = 'apiVersion: llmgw/v1\nkind: Models\nmodels:\n';

const CASES: [rule: string, body: string, expected: string][] = [
  ['a tab used for indentation, at its line', '  - name: m\n\tweights: x\n', 'models.yaml:5:1: tab used for indentation: YAML indents with spaces only'],
  [
    'an unclosed double quote, where it opens (not at the end of the file)',
    '  - name: "m\n    weights: x\n    gpus: 1\n',
    'models.yaml:4:11: unclosed quote: the " that starts here is never closed',
  ],
  ['an unclosed single quote, where it opens', "  - name: 'm\n    weights: x\n", "models.yaml:4:11: unclosed quote: the ' that starts here is never closed"],
  [
    'an unclosed [, where it opens (not on the next line)',
    '  - name: m\n    args: [--a, b\n    gpus: 1\n',
    'models.yaml:5:11: unclosed bracket: the list that starts with [ here has no closing ]',
  ],
  [
    'an unclosed {, where it opens',
    '  - { name: m, gpus: 1\n  - name: x\n',
    'models.yaml:4:5: unclosed bracket: the mapping that starts with { here has no closing }',
  ],
  [
    'a key indented deeper than the one above, at the deeper line (not the line above)',
    '  - name: m\n      weights: x\n    gpus: 1\n',
    'models.yaml:5:7: bad indentation: this line is indented deeper than the key on line 4, which already has a value',
  ],
  [
    'a key indented less than its siblings, at that line',
    '  - name: m\n    weights: x\n   gpus: 1\n',
    'models.yaml:6:4: bad indentation: this line is indented less than the keys above it',
  ],
  [
    'keys of one mapping in different columns',
    '  - name: m\n  gpus: 1\n',
    'models.yaml:5:3: bad indentation: the keys of one mapping must start in the same column',
  ],
  [
    'a duplicate key, at the second one, naming it',
    '  - name: m\n    gpus: 1\n    gpus: 2\n',
    "models.yaml:6:5: duplicate key 'gpus': a key may appear once in a mapping",
  ],
  ['a missing colon, at its line', '  - name: m\n    weights org/m\n    gpus: 1\n', "models.yaml:5:5: missing colon: a key needs ':' after it (key: value)"],
  ['a missing colon on the last line', '  - name: m\n    gpus 1\n', "models.yaml:5:5: missing colon: a key needs ':' after it (key: value)"],
  ['a colon without the space after it', '  - name:m\n    gpus: 1\n', "models.yaml:4:5: missing space after ':': write 'key: value'"],
  ['a value starting with @ must be quoted', '  - weights: @org/x\n', 'models.yaml:4:14: a value cannot start with @: put it in quotes'],
  [
    "a value with ': ' in it must be quoted",
    '  - name: a: b\n',
    'models.yaml:4:11: a value with \': \' in it must be quoted ("a: b"), or start a new line for a nested mapping',
  ],
];

for (const [rule, body, expected] of CASES) {
  test(rule, () => {
    assert.equal(modelsError(HEAD + body), [expected]);
  });
}

test('a list used as a key is an error of its own line, and Node prints no warning', async () => {
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(w.message);
  process.on('warning', onWarning);
  try {
    assert.equal(modelsError(`${HEAD}  - name: m\n    ? [a, b]\n    : x\n`), ['models.yaml:5:7: a list or mapping cannot be a key: keys are plain names']);
    assert.equal(modelsError(`${HEAD}  - name: m\n    ? { a: 1 }: x\n`), ['models.yaml:5:7: a list or mapping cannot be a key: keys are plain names']);
    assert.equal(modelsError(`x-k: &k [a]\n${HEAD}  - name: m\n    *k : x\n`), ['models.yaml:6:5: a list or mapping cannot be a key: keys are plain names']);
    // process.emitWarning delivers on a later tick.
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(warnings, []);
  } finally {
    process.off('warning', onWarning);
  }
});

test('control characters in a syntax error reach the message escaped', () => {
  const [line] = modelsError(`${HEAD}  - name: m\n    "\x1b[31mkey": 1\n    "\x1b[31mkey": 2\n`);
  assert.is(line, 'models.yaml:6:5: duplicate key \'"\\x1b[31mkey"\': a key may appear once in a mapping');
});

test.run();
