// Slurm-style hostlists (docs/config.md): `gpu[01-16]`, `gpu[01-04,07]`,
// `r[1-2]n[01-04]`, and comma-separated lists of those. Zero padding is kept,
// because `gpu01` and `gpu1` are different hosts. A malformed pattern is a
// result, never an exception: it is a user's typo in a PR. A pattern is parsed
// into ranges and counted before any name is made, so a cap can refuse
// `n[0-99999]x[0-99999]` (or many large entries together) at no cost.

import { clip } from '../text/terminal-text.js';

export const MAX_HOSTLIST_NAMES = 100_000;

/** A parsed pattern: how many names it stands for, and a way to make them. */
export type ParsedHostlist = { ok: true; count: number; expand: () => string[] } | { ok: false; error: string };
export type HostlistResult = { ok: true; names: string[] } | { ok: false; error: string };

interface Range {
  from: number;
  to: number;
  width: number;
}
type Part = { literal: string } | { ranges: Range[]; count: number };

const LITERAL = /^[A-Za-z0-9._-]*$/;
/** Past 15 digits a number is no longer counted exactly. */
const MAX_DIGITS = 15;

/** Splits on commas that are not inside brackets. */
function splitTop(pattern: string): string[] | null {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '[') depth++;
    else if (c === ']') depth--;
    if (depth < 0 || depth > 1) return null;
    if (c === ',' && depth === 0) {
      out.push(pattern.slice(start, i));
      start = i + 1;
    }
  }
  if (depth !== 0) return null;
  out.push(pattern.slice(start));
  return out;
}

function parseRange(item: string): Range | string {
  const m = /^([0-9]+)(?:-([0-9]+))?$/.exec(item);
  if (!m) return `'${clip(item, 40)}' is not a number or a range like 01-16`;
  const lo = m[1] ?? '';
  const hi = m[2] ?? lo;
  if (lo.length > MAX_DIGITS || hi.length > MAX_DIGITS) return `a number of more than ${MAX_DIGITS} digits`;
  const from = Number(lo);
  const to = Number(hi);
  if (from > to) return `range ${item} runs backwards`;
  if (to - from + 1 > MAX_HOSTLIST_NAMES) return `range ${item} has more than ${MAX_HOSTLIST_NAMES} names`;
  // Slurm keeps the width of the lower bound: [01-10] is 01..10, [1-10] is 1..10.
  return { from, to, width: lo.length > 1 && lo.startsWith('0') ? lo.length : 0 };
}

function parseOne(pattern: string): Part[] | string {
  const parts: Part[] = [];
  let rest = pattern;
  while (rest.length > 0) {
    const open = rest.indexOf('[');
    const literal = open < 0 ? rest : rest.slice(0, open);
    if (!LITERAL.test(literal)) return `'${clip(literal, 40)}' has characters a host name cannot have`;
    if (literal) parts.push({ literal });
    if (open < 0) break;
    const close = rest.indexOf(']', open);
    const body = rest.slice(open + 1, close);
    if (body === '') return 'empty brackets []';
    const ranges: Range[] = [];
    let count = 0;
    for (const item of body.split(',')) {
      const range = parseRange(item);
      if (typeof range === 'string') return range;
      ranges.push(range);
      count += range.to - range.from + 1;
      if (count > MAX_HOSTLIST_NAMES) return `more than ${MAX_HOSTLIST_NAMES} names`;
    }
    parts.push({ ranges, count });
    rest = rest.slice(close + 1);
  }
  if (parts.length === 0) return 'an empty name';
  return parts;
}

function values(p: Part): string[] {
  if ('literal' in p) return [p.literal];
  const out: string[] = [];
  for (const r of p.ranges) for (let n = r.from; n <= r.to; n++) out.push(String(n).padStart(r.width, '0'));
  return out;
}

function expandParsed(pieces: Part[][]): string[] {
  const names: string[] = [];
  for (const parts of pieces) {
    let acc = [''];
    for (const p of parts) {
      const vals = values(p);
      const next: string[] = [];
      for (const prefix of acc) for (const v of vals) next.push(prefix + v);
      acc = next;
    }
    // A loop, not push(...acc): spreading 100,000 arguments can overflow the stack.
    for (const name of acc) names.push(name);
  }
  return names;
}

/** How many names `pattern` stands for, without making them; or why it is malformed. */
export function parseHostlist(pattern: string): ParsedHostlist {
  const shown = clip(pattern);
  const pieces = splitTop(pattern);
  if (pieces === null) return { ok: false, error: `malformed hostlist '${shown}': unbalanced or nested brackets` };
  const parsed: Part[][] = [];
  let total = 0;
  for (const piece of pieces) {
    const parts = parseOne(piece);
    if (typeof parts === 'string') return { ok: false, error: `malformed hostlist '${shown}': ${parts}` };
    total += parts.reduce((n, p) => n * ('count' in p ? p.count : 1), 1);
    if (total > MAX_HOSTLIST_NAMES) {
      return { ok: false, error: `hostlist '${shown}' expands to more than ${MAX_HOSTLIST_NAMES} names` };
    }
    parsed.push(parts);
  }
  return { ok: true, count: total, expand: () => expandParsed(parsed) };
}

/** Every name a hostlist pattern stands for, in order (the last bracket varies fastest). */
export function expandHostlist(pattern: string): HostlistResult {
  const parsed = parseHostlist(pattern);
  return parsed.ok ? { ok: true, names: parsed.expand() } : parsed;
}
