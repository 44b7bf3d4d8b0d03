// A config file read from YAML (docs/config.md): the size cap is inclusive,
// aliases that repeat too much while converting are one problem at the top of
// the file, and a problem's place (value or key) is found as the file writes it.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { keysInFileOrder, locate, parseYamlSource, type YamlSource } from '../../src/config/yaml-source.js';
import { MAX_CONFIG_BYTES } from '../../src/config/limits.js';

function source(text: string): YamlSource {
  const r = parseYamlSource('f.yaml', text, 'a mapping');
  if (!r.ok) throw new Error(r.error.message);
  return r.source;
}

test('a file of exactly the size cap is read; one byte more is refused', () => {
  const exact = `a: ${'x'.repeat(MAX_CONFIG_BYTES - 4)}\n`;
  assert.is(Buffer.byteLength(exact), MAX_CONFIG_BYTES);
  const r = parseYamlSource('f.yaml', exact, 'a mapping');
  assert.ok(r.ok);
  const over = parseYamlSource('f.yaml', `${exact}b`, 'a mapping');
  assert.equal(over, {
    ok: false,
    error: { file: 'f.yaml', line: 1, col: 1, path: '', message: 'the file is 4,194,305 bytes; a config file may be at most 4 MiB' },
  });
});

test('more than 1000 alias uses while converting is the too-large problem, at the start of the document', () => {
  const text = `x: 1\na: &a x\nb: [${Array<string>(1001).fill('*a').join(', ')}]\n`;
  assert.equal(parseYamlSource('f.yaml', text, 'a mapping'), {
    ok: false,
    error: { file: 'f.yaml', line: 1, col: 1, path: '', message: 'aliases (*name) repeat too much: they may add at most 1,000,000 values (1000 alias uses)' },
  });
});

test("any other failure while converting is yaml's first line, at the start of the document", () => {
  assert.equal(parseYamlSource('f.yaml', 'x: 1\na: &a 1\nb:\n  <<: *a\n', 'a mapping'), {
    ok: false,
    error: { file: 'f.yaml', line: 1, col: 1, path: '', message: 'invalid YAML: Merge sources must be maps or map aliases' },
  });
});

test('a value is located at the value; only an empty null is located at its key', () => {
  const src = source('a: 1\nb: ""\nc: !!str\nd:\ne: [x]\n');
  assert.equal(locate(src, ['a']), { line: 1, col: 4 });
  assert.equal(locate(src, ['b']), { line: 2, col: 4 });
  // `!!str` with nothing after it is the empty string, a value of its own: shown at the value.
  assert.equal(locate(src, ['c']), { line: 3, col: 9 });
  assert.equal(locate(src, ['d']), { line: 4, col: 1 });
  assert.equal(locate(src, ['e']), { line: 5, col: 4 });
  assert.equal(locate(src, ['e', 0]), { line: 5, col: 5 });
});

test('a name used as an index into a list stops at the list', () => {
  const src = source('k: 1\ne: [x, y]\n');
  assert.equal(locate(src, ['e', 'length']), { line: 2, col: 4 });
  assert.equal(locate(src, ['e', '1']), { line: 2, col: 4 });
});

test('the keys in file order are those of a mapping only: a list or a scalar has none', () => {
  const src = source('m: { "4090": 1, a100: 2 }\nl: [a, b]\ns: x\n');
  assert.equal(keysInFileOrder(src, ['m']), ['4090', 'a100']);
  assert.equal(keysInFileOrder(src, ['l']), []);
  assert.equal(keysInFileOrder(src, ['s']), []);
  assert.equal(keysInFileOrder(src, ['missing']), []);
});

test.run();
