// A YAML file with its source positions, so every problem found later (by the
// schema or by a meaning check) can name `file:line:col` of the node at fault.

import { LineCounter, isMap, isPair, isScalar, isSeq, parseDocument, visit, type Document, type Node } from 'yaml';
import type { ConfigProblem } from '../types/config.js';

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

/** Parses one config file; a syntax error, an empty file or a non-mapping is one problem. */
export function parseYamlSource(file: string, text: string, expects: string): ParseResult {
  const lines = new LineCounter();
  // merge: `<<: *defaults` lets node entries share their storage lists.
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, merge: true });
  const syntax = doc.errors[0];
  if (syntax) {
    // An error "at the end of the input" is shown at the end of the last line, not on a line past it.
    const at = lines.linePos(Math.min(syntax.pos[0], text.trimEnd().length));
    // yaml's messages carry a code excerpt after the first line; the position says enough.
    const message = syntax.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
    return { ok: false, error: { file, line: at.line, col: at.col, path: '', message: `invalid YAML: ${message}` } };
  }
  if (doc.contents === null) {
    return { ok: false, error: { file, line: 1, col: 1, path: '', message: `the file is empty; expected ${expects}` } };
  }
  let value: unknown;
  try {
    // Throws on an alias with no anchor, or aliases that would expand without bound.
    value = doc.toJS({ maxAliasCount: 1000 }) as unknown;
  } catch (err) {
    let offset = doc.contents.range[0];
    visit(doc, {
      Alias(_key, alias) {
        if (alias.resolve(doc) !== undefined) return undefined;
        offset = alias.range?.[0] ?? offset;
        return visit.BREAK;
      },
    });
    const at = lines.linePos(offset);
    const message = (err as Error).message.split('\n')[0].replace(/: \S+$/, '');
    return { ok: false, error: { file, line: at.line, col: at.col, path: '', message: `invalid YAML: ${message}` } };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const at = lines.linePos(doc.contents.range[0]);
    return {
      ok: false,
      error: { file, line: at.line, col: at.col, path: '', message: `expected ${expects}, found ${describe(value)}` },
    };
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

/** A problem at `path` of `src`. */
export function problemAt(
  src: YamlSource,
  path: readonly PathSegment[],
  message: string,
  at: 'value' | 'key' = 'value',
): ConfigProblem {
  const { line, col } = locate(src, path, at);
  return { file: src.file, line, col, path: formatPath(path), message };
}
