// docs/security.md names, for each limit, the test that shows it holds. This
// keeps the page true to the code: every test file it links exists (the links
// test checks that) and every test it quotes after a link is in that file.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const page = readFileSync(join(ROOT, 'docs/security.md'), 'utf8');

/** Each linked test file with the test names quoted right after it: `[x](../test/a.test.ts): "name", "name"`. */
function citations(): { file: string; quotes: string[] }[] {
  return [...page.matchAll(/\]\((\.\.\/test\/[^)\s]+\.test\.ts)\)((?:(?::|,)\s*"[^"]+")*)/g)].map((m) => ({
    file: m[1]!.replace(/^\.\.\//, ''),
    quotes: [...m[2]!.matchAll(/"([^"]+)"/g)].map((q) => q[1]!),
  }));
}

test('docs/security.md cites tests for the threat model and for each attack of issue #11', () => {
  const all = citations();
  assert.ok(all.length >= 30, `${all.length} citations`);
  assert.ok(all.filter((c) => c.quotes.length > 0).length >= 25);
});

test('every test name docs/security.md quotes is a test of the file it links', () => {
  const missing: string[] = [];
  for (const { file, quotes } of citations()) {
    // As the name reads, not as the source escapes it (\' in a single-quoted name).
    const text = readFileSync(join(ROOT, file), 'utf8').replace(/\\'/g, "'");
    for (const q of quotes) if (!text.includes(q)) missing.push(`${file}: "${q}"`);
  }
  assert.equal(missing, []);
});

test.run();
