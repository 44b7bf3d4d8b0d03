// Patterns from a pull request, matched in time linear in the text (docs/config.md:
// the answer check's `expect`). A backtracking RegExp spins on `^(a+)+$` for
// longer than any SSH timeout, on every node at once; re2js (RE2 in pure
// JavaScript, so it goes into the one-file node bundle) cannot, because RE2
// never backtracks. The price is what RE2 refuses to compile: backreferences and
// lookaround, and repeats over 1000. One module compiles for both validation and
// the agent, so what `llmgw validate` accepts is exactly what a node can match.

import { RE2JS } from 're2js';

export interface BoundedPattern {
  /** Whether the pattern matches anywhere in text. */
  test(text: string): boolean;
}

/** RegExp flags llmgw passes on, as RE2JS flags; d (indices), u and v (Unicode: RE2 always is) change nothing a test sees. */
const FLAG_BITS: Record<string, number> = { i: RE2JS.CASE_INSENSITIVE, m: RE2JS.MULTILINE, s: RE2JS.DOTALL, d: 0, u: 0, v: 0 };

/** Why RE2 refused the pattern, said as what the operator wrote rather than as RE2's parser state. */
function cause(source: string, message: string): string {
  const detail = message.replace(/^error parsing regexp: /, '');
  if (/\\[1-9]/.test(source) && /invalid escape/.test(detail)) return `a backreference (${/\\[1-9]/.exec(source)?.[0] ?? ''}) cannot be matched in linear time`;
  if (/\(\?<?[=!]/.test(source)) return 'lookaround ((?=, (?!, (?<=, (?<!) cannot be matched in linear time';
  if (/invalid repeat count/.test(detail)) return `${detail} (at most 1000)`;
  return `not a linear-time (RE2) pattern: ${detail}`;
}

/** The compiled pattern, or why it cannot be one (one line, no trailing period). */
export function compileBounded(source: string, flags = ''): { ok: true; pattern: BoundedPattern } | { ok: false; error: string } {
  let bits = 0;
  for (const f of flags) {
    const bit = FLAG_BITS[f];
    if (bit === undefined) return { ok: false, error: `flag ${JSON.stringify(f)} is not one of d, i, m, s, u, v` };
    bits |= bit;
  }
  try {
    const re = RE2JS.compile(source, bits);
    return { ok: true, pattern: { test: (text) => re.test(text) } };
  } catch (err) {
    return { ok: false, error: cause(source, err instanceof Error ? err.message : String(err)) };
  }
}
