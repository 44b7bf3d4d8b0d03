// Text quoted from a file, a report or a reply, made safe to print (docs/security.md).
// A PR's YAML key like "a\x1b[2J" would otherwise clear a reviewer's terminal, a
// "\r" would overwrite the line that names the file, and a bidi override would
// show a reviewer other text than the bytes say. Every such character becomes a
// visible escape, so what is printed is one line and reads as what was written.

/**
 * C0 controls (newline and tab included: a message is one line), DEL, C1
 * controls, the bidi embeddings/overrides/isolates and marks, and the Unicode
 * line and paragraph separators.
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\x1b': '\\x1b' };

function escapeOne(c: string): string {
  const named = NAMED[c];
  if (named !== undefined) return named;
  const code = c.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** `text` with every control, bidi or line-separating character written as a visible escape (`\x1b`, `\r`, `\u202e`). */
export function escapeTerminal(text: string): string {
  return text.replace(UNSAFE, escapeOne);
}

/** What JSON.stringify leaves raw that a terminal may still act on: DEL, C1, bidi controls, line separators. */
const JSON_UNSAFE = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * JSON text (JSON.stringify's output) with the characters it leaves raw —
 * DEL, C1 controls, bidi controls, U+2028/2029 — written as `\uXXXX`. The
 * same JSON value, and `cat`-ing the file or the output cannot reorder or
 * control a terminal. (They can only occur inside strings, where the escape
 * means the same character.)
 */
export function escapeJsonText(json: string): string {
  return json.replace(JSON_UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Whether `text` holds a character escapeTerminal would rewrite. */
export function hasUnsafeText(text: string): boolean {
  UNSAFE.lastIndex = 0;
  const found = UNSAFE.test(text);
  UNSAFE.lastIndex = 0;
  return found;
}

/** `text` cut to `max` characters with `…` at the cut, so one hostile value cannot make a line megabytes long. */
export function clip(text: string, max = 80): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
