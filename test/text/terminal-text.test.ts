import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { clip, escapeTerminal, hasUnsafeText } from '../../src/text/terminal-text.js';

/** A test of `rule`: each text is shown as the escaped text given with it. */
function escapeRule(rule: string, ...cases: [text: string, shown: string][]) {
  test(rule, () => {
    for (const [text, shown] of cases) assert.is(escapeTerminal(text), shown, shown);
  });
}

escapeRule(
  'ESC, CR, BEL, newline and tab become visible escapes: a quoted key cannot recolour, rewrite or split a line',
  ['a\x1b[31mred\x1b[0m', 'a\\x1b[31mred\\x1b[0m'],
  ['ok\rFAKE', 'ok\\rFAKE'],
  ['ding\x07', 'ding\\x07'],
  ['two\nlines\tand tab', 'two\\nlines\\tand tab'],
  ['nul\x00 del\x7f', 'nul\\x00 del\\x7f'],
);

escapeRule('C1 controls (the 8-bit CSI among them) are escaped too', ['\u009b31m', '\\x9b31m'], ['\u0085next', '\\x85next']);

escapeRule(
  'bidi overrides, isolates and marks, and line separators are escaped: what is shown is what is written',
  ['admin\u202Etxt.exe', 'admin\\u202etxt.exe'],
  ['\u2066x\u2069\u200f\u061c', '\\u2066x\\u2069\\u200f\\u061c'],
  ['a\u2028b\u2029c', 'a\\u2028b\\u2029c'],
);

test('ordinary text, Unicode letters and emoji pass unchanged, and escaping twice changes nothing more', () => {
  const plain = 'models.yaml:4:11: models[0].name: Größe 模型 🚀 "quoted" \\ back';
  assert.is(escapeTerminal(plain), plain);
  const once = escapeTerminal('x\x1b[2Jy');
  assert.is(escapeTerminal(once), once);
});

test('hasUnsafeText tells text that needs escaping, repeatably', () => {
  assert.ok(hasUnsafeText('a\x1bb'));
  assert.ok(hasUnsafeText('a\x1bb'));
  assert.not.ok(hasUnsafeText('plain'));
});

test('clip cuts long text with an ellipsis and leaves short text alone', () => {
  assert.is(clip('short'), 'short');
  assert.is(clip('x'.repeat(100), 10), 'xxxxxxxxx…');
  assert.is(clip('x'.repeat(100)).length, 80);
});

test.run();
