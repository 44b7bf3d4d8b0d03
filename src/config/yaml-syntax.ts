// A YAML syntax error in plain words, at the line that holds the mistake.
// The yaml library often notices a mistake a line late or early (an unclosed
// quote at the end of the file, an over-indented key at the value above it)
// and words it for people who know YAML's grammar. The common mistakes are
// recognised here from its error codes and the file's own tokens (CST).

import { type CST, Parser, type LineCounter, type YAMLError } from 'yaml';

export interface SyntaxProblem {
  line: number;
  col: number;
  message: string;
}

type Token = CST.Token;

/** Every token of the file, depth first, in file order. */
function tokens(text: string): Token[] {
  const out: Token[] = [];
  const walk = (t: Token | undefined): void => {
    if (!t) return;
    out.push(t);
    if ('items' in t && Array.isArray(t.items)) {
      for (const item of t.items as CST.CollectionItem[]) {
        // The parser's types say `start` is always there; the guard stays for items the types do not describe.
        for (const s of (item.start as CST.SourceToken[] | undefined) ?? []) walk(s);
        walk(item.key ?? undefined);
        for (const s of item.sep ?? []) walk(s);
        walk(item.value);
      }
    }
    if (t.type === 'document') {
      for (const s of t.start) walk(s);
      walk(t.value);
    }
  };
  for (const t of new Parser().parse(text)) walk(t);
  return out;
}

/** A quoted string with no closing quote: the quote that opened it. */
function unclosedQuote(all: Token[]): { offset: number; quote: string } | null {
  for (const t of all) {
    if (t.type !== 'double-quoted-scalar' && t.type !== 'single-quoted-scalar') continue;
    const q = t.source.charAt(0);
    const body = t.source.slice(1).trimEnd();
    // "…" closes on a quote after an even run of backslashes; '…' on an odd run of quotes ('' is a quote inside).
    const closed = q === '"' ? /(?:^|[^\\])(?:\\\\)*"$/.test(body) : (/'+$/.exec(body)?.[0].length ?? 0) % 2 === 1;
    if (!closed) return { offset: t.offset, quote: q };
  }
  return null;
}

/** A [ or { with no closing bracket: the bracket that opened it. */
function unclosedBracket(all: Token[]): { offset: number; open: string } | null {
  for (const t of all) {
    if (t.type !== 'flow-collection') continue;
    const open = t.start.source;
    const close = open === '[' ? ']' : '}';
    if (!t.end.some((e) => e.source === close)) return { offset: t.offset, open };
  }
  return null;
}

/** Line and column of the first character that is not a space on `line`. */
function lineStart(text: string, lines: LineCounter, line: number): { line: number; col: number } {
  const start = lines.lineStarts[line - 1] ?? 0;
  const indent = /^[ \t]*/.exec(text.slice(start))?.[0].length ?? 0;
  return { line, col: indent + 1 };
}

function firstLineOf(text: string, offset: number): string {
  const end = text.indexOf('\n', offset);
  return text.slice(offset, end < 0 ? undefined : end);
}

/**
 * The first syntax error, reworded. `errors` are the document's, in the
 * library's order; several codes together tell some mistakes apart.
 */
export function describeSyntaxError(errors: readonly YAMLError[], text: string, lines: LineCounter): SyntaxProblem {
  const first = errors[0];
  const at = (offset: number, message: string): SyntaxProblem => ({ ...lines.linePos(offset), message });
  // The parser reported at least one error to get here; none is the whole file being fine, said at its start.
  if (first === undefined) return at(0, 'invalid YAML');
  // An error "at the end of the input" is shown at the end of the last line, not on a line past it.
  const here = (message: string) => at(Math.min(first.pos[0], text.trimEnd().length), message);
  const codes = new Set(errors.map((e) => e.code));

  // Quotes and brackets first: an unclosed one makes the library stumble elsewhere, later in the file.
  if (codes.has('MISSING_CHAR') || codes.has('BAD_INDENT') || codes.has('UNEXPECTED_TOKEN') || codes.has('MULTILINE_IMPLICIT_KEY')) {
    const all = tokens(text);
    const quote = unclosedQuote(all);
    if (quote) return at(quote.offset, `unclosed quote: the ${quote.quote} that starts here is never closed`);
    const bracket = unclosedBracket(all);
    if (bracket) {
      const what = bracket.open === '[' ? 'list' : 'mapping';
      return at(bracket.offset, `unclosed bracket: the ${what} that starts with ${bracket.open} here has no closing ${bracket.open === '[' ? ']' : '}'}`);
    }
  }
  switch (first.code) {
    case 'TAB_AS_INDENT':
      return here('tab used for indentation: YAML indents with spaces only');
    case 'DUPLICATE_KEY': {
      const key = /^[^:\n]*/.exec(text.slice(first.pos[0]))?.[0].trim();
      return here(`duplicate key${key ? ` '${key}'` : ''}: a key may appear once in a mapping`);
    }
    case 'MULTIPLE_DOCS':
      return here('a second document (after ---): the file must hold one');
    case 'BLOCK_AS_IMPLICIT_KEY': {
      // With MULTILINE_IMPLICIT_KEY: a line indented deeper than the key above
      // it, read as the continuation of that key's value. Point at that line.
      const multi = errors.find((e) => e.code === 'MULTILINE_IMPLICIT_KEY');
      if (multi) {
        const { line } = lines.linePos(multi.pos[1]);
        const above = lines.linePos(first.pos[0]).line;
        return {
          ...lineStart(text, lines, line),
          message: `bad indentation: this line is indented deeper than the key on line ${above}, which already has a value`,
        };
      }
      return here('a value with \': \' in it must be quoted ("a: b"), or start a new line for a nested mapping');
    }
    case 'MULTILINE_IMPLICIT_KEY': {
      const written = firstLineOf(text, first.pos[0]);
      if (/:[^\s]/.test(written) && !written.includes(': ')) return here("missing space after ':': write 'key: value'");
      return here("missing colon: a key needs ':' after it (key: value)");
    }
    case 'MISSING_CHAR':
      if (/Implicit map keys need to be followed by map values/.test(first.message)) {
        return here("missing colon: a key needs ':' after it (key: value)");
      }
      if (/Sequence item without - indicator/.test(first.message)) {
        return { ...lineStart(text, lines, lines.linePos(first.pos[0]).line), message: 'bad indentation: this line is indented less than the keys above it' };
      }
      break;
    case 'BAD_INDENT': {
      const { line } = lines.linePos(first.pos[0]);
      if (/Flow (sequence|map)/.test(first.message)) {
        return { ...lineStart(text, lines, line), message: 'bad indentation: a [ ] or { } that goes on past its line must be indented deeper than its key' };
      }
      return { ...lineStart(text, lines, line), message: 'bad indentation: the keys of one mapping must start in the same column' };
    }
    case 'BAD_SCALAR_START': {
      const c = text[first.pos[0]] ?? '';
      return here(`a value cannot start with ${c}: put it in quotes`);
    }
    case 'BAD_ALIAS':
      return here('a value that starts with * is an alias: put it in quotes');
    case 'BAD_DQ_ESCAPE':
      return here('bad escape in a "…" string: write \\\\ for a backslash, or use \'…\' quotes');
    case 'UNEXPECTED_TOKEN':
      return here('unexpected text after a value: put the whole value in quotes');
    case 'KEY_OVER_1024_CHARS':
      return here('a key longer than 1024 characters');
    default:
      break;
  }
  // yaml's messages carry a code excerpt after the first line; the position says enough.
  return here(`invalid YAML: ${(first.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '')}`);
}
