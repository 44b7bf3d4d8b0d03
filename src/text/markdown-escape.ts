// Text that came from a node (a GPU name, a replica id, a path) is untrusted:
// a node must not be able to inject Markdown, HTML, links or mentions into
// STATUS.md, nor escape sequences into an operator's terminal.

// C0/C1 controls (ESC included) and the bidi overrides that reorder what a reader sees.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const NEWLINES = /[\r\n\t\u2028\u2029]+/g;

// Printable ASCII has nothing plainText removes; letters, digits, spaces, dots,
// commas and hyphens nothing md() escapes (but `www.`). Most names are so, and a
// 20,000-node STATUS.md escapes hundreds of thousands of them.
const PRINTABLE = /^[\x20-\x7e]*$/;
const INERT = /^[A-Za-z0-9 .,-]*$/;
const WWW = /www\./i;

/** Safe for a terminal: one line, no control characters. */
export function plainText(text: string): string {
  if (PRINTABLE.test(text)) return text;
  return text.replace(NEWLINES, ' ').replace(CONTROL, '');
}

// `<` opens every tag and `&` every entity; a lone `>` or `"` mid-line is plain text.
const HTML: Record<string, string> = { '&': '&amp;', '<': '&lt;' };

/**
 * Safe inline Markdown, also inside a table cell: `<` and `&` become entities; Markdown punctuation that could start emphasis, code, links, images,
 * tables, headings, autolinks (`scheme://`, `www.`, `mailto:`), mentions or issue
 * references is backslash-escaped. Dots, hyphens and other colons stay, so
 * `gpu-a01`, `llama-3.1` and `models.yaml:3:5` read as they are.
 */
export function md(text: string): string {
  if (INERT.test(text) && !WWW.test(text)) return text;
  return mdProse(text).replace(/[()]/g, '\\$&');
}

/**
 * llmgw's own sentences (a headline, the blocked rule): escaped like md() but
 * for parentheses, which start nothing once `[` is escaped and which a
 * sentence uses a lot. Anything quoted from a node goes through md().
 */
export function mdProse(text: string): string {
  if (INERT.test(text) && !WWW.test(text)) return text;
  return plainText(text)
    .replace(/[\\`*_[\]{}#+!|~@]/g, '\\$&')
    .replace(/:(?=\/)|(?<=(?:mailto|xmpp|tel|javascript|data)):/gi, '\\:')
    .replace(/[&<]/g, (c) => HTML[c] ?? c)
    .replace(/www\./gi, (w) => `${w.slice(0, 3)}\\.`);
}

/** A backtick fence longer than any backtick run in `text`, so nothing inside can close it. */
export function codeFence(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  return '`'.repeat(Math.max(3, longest + 1));
}
