// A YAML file with its source positions, so every problem found later (by the
// schema or by a meaning check) can name `file:line:col` of the node at fault.

import { Composer, Lexer, LineCounter, Parser, YAMLParseError, isMap, isPair, isScalar, isSeq, type CST, type Document, type Node } from 'yaml';
import type { ConfigProblem } from '../types/config.js';
import { formatBytes } from '../text/format.js';
import { MAX_ALIAS_COUNT, MAX_ALIAS_VALUES, MAX_CONFIG_BYTES } from './limits.js';
import { checkDocumentShape, type ShapeProblem } from './yaml-shape.js';
import { describeSyntaxError } from './yaml-syntax.js';

export type PathSegment = string | number;

export interface YamlSource {
  /** The file name as printed. */
  file: string;
  doc: Document.Parsed;
  lines: LineCounter;
  /** The document as plain data. */
  value: unknown;
}

export type ParseResult = { ok: true; source: YamlSource } | { ok: false; error: ConfigProblem };

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (value === null) return 'null';
  return `a ${typeof value}`;
}

const SHAPE_MESSAGES: Record<ShapeProblem['why'], string> = {
  'collection-key': 'a list or mapping cannot be a key: keys are plain names',
  unresolved: 'an alias (*name) with no anchor (&name) before it',
  cycle: 'an alias (*name) inside the node its anchor (&name) marks: that would repeat for ever',
  'too-large': `aliases (*name) repeat too much: they may add at most ${MAX_ALIAS_VALUES.toLocaleString('en-US')} values (${MAX_ALIAS_COUNT} alias uses)`,
};

/** Deeper than any config is written; yaml's parser slows down past it (a million `[` took seconds). */
const MAX_NESTING = 100;

/**
 * yaml's parseDocument, driven token by token so that nesting is bounded
 * before it gets expensive. merge: `<<: *defaults` lets node entries share
 * their storage lists; logLevel 'error': every problem is reported as a line
 * of its own, never as a process warning.
 */
function parseBounded(text: string, lines: LineCounter): { doc: Document.Parsed } | { tooDeep: number } {
  const parser = new Parser(lines.addNewLine);
  lines.addNewLine(0);
  const cst: CST.Token[] = [];
  for (const lexeme of new Lexer().lex(text)) {
    for (const token of parser.next(lexeme)) cst.push(token);
    if (parser.stack.length > MAX_NESTING) return { tooDeep: parser.offset };
  }
  for (const token of parser.end()) cst.push(token);
  const composer = new Composer({ merge: true, logLevel: 'error' });
  let doc: Document.Parsed | undefined;
  for (const next of composer.compose(cst, true, text.length)) {
    if (!doc) doc = next;
    else {
      const at = next.range[0];
      doc.errors.push(new YAMLParseError([at, at + 1], 'MULTIPLE_DOCS', 'Source contains multiple documents'));
      break;
    }
  }
  // compose(…, forceDoc = true) yields a document even for empty text.
  if (!doc) throw new Error('the YAML composer produced no document');
  return { doc };
}

function problem(file: string, lines: LineCounter, offset: number, message: string): ConfigProblem {
  const at = lines.linePos(offset);
  return { file, line: at.line, col: at.col, path: '', message };
}

/** Parses one config file; a syntax error, an empty file or a non-mapping is one problem. */
export function parseYamlSource(file: string, text: string, expects: string): ParseResult {
  // Measured before parsing: yaml's cost grows with the text, and 50 MB took minutes.
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_CONFIG_BYTES) {
    return {
      ok: false,
      error: { file, line: 1, col: 1, path: '', message: `the file is ${formatBytes(bytes)}; a config file may be at most ${formatBytes(MAX_CONFIG_BYTES)}` },
    };
  }
  const lines = new LineCounter();
  const parsed = parseBounded(text, lines);
  if ('tooDeep' in parsed) {
    return { ok: false, error: problem(file, lines, parsed.tooDeep, `nested deeper than ${MAX_NESTING} levels`) };
  }
  const doc = parsed.doc;
  if (doc.errors.length > 0) {
    const syntax = describeSyntaxError(doc.errors, text, lines);
    return { ok: false, error: { file, line: syntax.line, col: syntax.col, path: '', message: syntax.message } };
  }
  if (doc.contents === null) {
    return { ok: false, error: { file, line: 1, col: 1, path: '', message: `the file is empty; expected ${expects}` } };
  }
  const shape = checkDocumentShape(doc, MAX_ALIAS_VALUES);
  if (shape) return { ok: false, error: problem(file, lines, shape.offset, SHAPE_MESSAGES[shape.why]) };
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) as unknown;
  } catch (err) {
    // maxAliasCount: many uses of aliases that themselves hold aliases.
    const message =
      err instanceof ReferenceError ? SHAPE_MESSAGES['too-large'] : `invalid YAML: ${String((err as { message?: unknown }).message).split('\n')[0] ?? ''}`;
    return { ok: false, error: problem(file, lines, doc.contents.range[0], message) };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, error: problem(file, lines, doc.contents.range[0], `expected ${expects}, found ${describe(value)}`) };
  }
  return { ok: true, source: { file, doc, lines, value } };
}

/** `models[2].gpus`, `engines.vllm.command[0]`, `engines["a b"]`. */
export function formatPath(path: readonly PathSegment[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (/^[A-Za-z0-9_-]+$/.test(seg)) out += out ? `.${seg}` : seg;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}

/**
 * Line and column of the node at `path`, or of its key when `at` is 'key'.
 * A path that goes further than the document (a missing key) stops at the
 * deepest node that exists: a missing key is reported at its parent.
 */
export function locate(src: YamlSource, path: readonly PathSegment[], at: 'value' | 'key' = 'value'): { line: number; col: number } {
  let node: unknown = src.doc.contents;
  let keyNode: unknown;
  for (const seg of path) {
    let next: unknown;
    let nextKey: unknown;
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && String(isScalar(p.key) ? p.key.value : p.key) === String(seg));
      if (pair) {
        next = pair.value ?? pair.key;
        nextKey = pair.key;
      }
    } else if (isSeq(node) && typeof seg === 'number') {
      next = node.items[seg];
    }
    if (next === undefined) break;
    node = next;
    keyNode = nextKey;
  }
  // `gpus:` with nothing after it has an empty null scalar past the colon: point at the key.
  const empty = isScalar(node) && node.value === null && node.range != null && node.range[0] === node.range[1];
  const target = ((at === 'key' || empty) && keyNode ? keyNode : node) as Node | null;
  const offset = target?.range?.[0] ?? 0;
  return src.lines.linePos(offset);
}

/**
 * The keys of the mapping at `path` in the order the file writes them. A JS
 * object puts integer-like keys (a class named 4090) first, whatever the file says.
 */
export function keysInFileOrder(src: YamlSource, path: readonly PathSegment[]): string[] {
  const node = src.doc.getIn(path, true);
  if (!isMap(node)) return [];
  return node.items.flatMap((p) => (isPair(p) ? [String(isScalar(p.key) ? p.key.value : p.key)] : []));
}

/** A problem at `path` of `src`. */
export function problemAt(src: YamlSource, path: readonly PathSegment[], message: string, at: 'value' | 'key' = 'value'): ConfigProblem {
  const { line, col } = locate(src, path, at);
  return { file: src.file, line, col, path: formatPath(path), message };
}
