// Quoting text the agent did not write (an engine's answer, an nvidia-smi line)
// into a report. The report ends up in a terminal, a log, STATUS.md and the
// console: an engine must not be able to move a cursor, ring a bell, reverse
// the text direction or fill a report with one answer. So whitespace runs
// become one space, control and bidi-formatting characters go, and the text is
// cut to a bound, counted in code points so no surrogate pair is split.

/** Engine answers are quoted up to this many characters. */
export const QUOTE_MAX_CHARS = 80;

// C0/C1 controls (\p{Cc}), and the format characters that reorder or hide text:
// bidi embeddings/overrides/isolates, zero-width joiners and marks, the BOM.
const UNSAFE = /[\p{Cc}\u061C\u200B-\u200F\u202A-\u202E\u2060-\u2069\uFEFF]/gu;

function clean(text: string, max: number): { text: string; cut: boolean } {
  const points = Array.from(text.replace(/\s+/g, ' ').replace(UNSAFE, '').trim());
  return points.length > max ? { text: points.slice(0, max).join(''), cut: true } : { text: points.join(''), cut: false };
}

/** The text made safe to print: one line, no control characters, at most `max` code points (then "…"). */
export function cleanText(text: string, max: number): string {
  const c = clean(text, max);
  return c.cut ? `${c.text}…` : c.text;
}

/** cleanText in double quotes, quotes and backslashes escaped as JSON does; "…" after the quote when cut. */
export function quoteText(text: string, max = QUOTE_MAX_CHARS): string {
  const c = clean(text, max);
  return `${JSON.stringify(c.text)}${c.cut ? '…' : ''}`;
}
