// The shape check before conversion (src/config/yaml-shape.ts): an alias adds
// every value of what it names, aliases inside it included, and the cap on
// added values is inclusive. An explicit key with no value is plain data.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseDocument } from 'yaml';
import { checkDocumentShape } from '../../src/config/yaml-shape.js';
import { parseYamlSource } from '../../src/config/yaml-source.js';

test('an alias adds the values of the node it names, counting the aliases inside that node; the cap is inclusive', () => {
  // a: the list and its 2 items = 3; b: itself + 3 + 3 = 7; added: 3 + 3 + 7 = 13.
  const text = 'a: &a [1, 2]\nb: &b [*a, *a]\nc: *b\n';
  assert.is(checkDocumentShape(parseDocument(text), 13), null);
  assert.equal(checkDocumentShape(parseDocument(text), 12), { offset: text.indexOf('*b'), why: 'too-large' });
});

test('a key written with ? and no value is read as a key with null', () => {
  const r = parseYamlSource('f.yaml', '? a\nb: 1\n', 'a mapping');
  assert.ok(r.ok);
  assert.equal(r.source.value, { a: null, b: 1 });
  assert.is(checkDocumentShape(parseDocument('? a\nb: [? c]\n'), 0), null);
});

test.run();
