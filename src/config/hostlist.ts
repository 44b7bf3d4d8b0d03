// Slurm-style hostlists (docs/config.md): `gpu[01-16]`, `gpu[01-04,07]`,
// `r[1-2]n[01-04]`, and comma-separated lists of those. Zero padding is kept,
// because `gpu01` and `gpu1` are different hosts. A malformed pattern is a
// result, never an exception: it is a user's typo in a PR.

export const MAX_HOSTLIST_NAMES = 100_000;

export type HostlistResult = { ok: true; names: string[] } | { ok: false; error: string };

type Part = { literal: string } | { values: string[] };

const LITERAL = /^[A-Za-z0-9._-]*$/;

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

function expandRange(item: string): string[] | string {
  const m = /^([0-9]+)(?:-([0-9]+))?$/.exec(item);
  if (!m) return `'${item}' is not a number or a range like 01-16`;
  const [, lo, hi = lo] = m;
  const from = Number(lo);
  const to = Number(hi);
  if (from > to) return `range ${item} runs backwards`;
  if (to - from + 1 > MAX_HOSTLIST_NAMES) return `range ${item} has more than ${MAX_HOSTLIST_NAMES} names`;
  // Slurm keeps the width of the lower bound: [01-10] is 01..10, [1-10] is 1..10.
  const width = lo.length > 1 && lo.startsWith('0') ? lo.length : 0;
  const out: string[] = [];
  for (let n = from; n <= to; n++) out.push(String(n).padStart(width, '0'));
  return out;
}

function parseOne(pattern: string): Part[] | string {
  const parts: Part[] = [];
  let rest = pattern;
  while (rest.length > 0) {
    const open = rest.indexOf('[');
    const literal = open < 0 ? rest : rest.slice(0, open);
    if (!LITERAL.test(literal)) return `'${literal}' has characters a host name cannot have`;
    if (literal) parts.push({ literal });
    if (open < 0) break;
    const close = rest.indexOf(']', open);
    const body = rest.slice(open + 1, close);
    if (body === '') return 'empty brackets []';
    const values: string[] = [];
    for (const item of body.split(',')) {
      const expanded = expandRange(item);
      if (typeof expanded === 'string') return expanded;
      values.push(...expanded);
      if (values.length > MAX_HOSTLIST_NAMES) return `more than ${MAX_HOSTLIST_NAMES} names`;
    }
    parts.push({ values });
    rest = rest.slice(close + 1);
  }
  if (parts.length === 0) return 'an empty name';
  return parts;
}

/** Every name a hostlist pattern stands for, in order (the last bracket varies fastest). */
export function expandHostlist(pattern: string): HostlistResult {
  const pieces = splitTop(pattern);
  if (pieces === null) return { ok: false, error: `malformed hostlist '${pattern}': unbalanced or nested brackets` };
  const parsed: Part[][] = [];
  let total = 0;
  for (const piece of pieces) {
    const parts = parseOne(piece);
    if (typeof parts === 'string') return { ok: false, error: `malformed hostlist '${pattern}': ${parts}` };
    total += parts.reduce((n, p) => n * ('values' in p ? p.values.length : 1), 1);
    // Checked before expanding, so `n[0-99999]x[0-99999]` costs nothing.
    if (total > MAX_HOSTLIST_NAMES) {
      return { ok: false, error: `hostlist '${pattern}' expands to more than ${MAX_HOSTLIST_NAMES} names` };
    }
    parsed.push(parts);
  }
  const names: string[] = [];
  for (const parts of parsed) {
    let acc = [''];
    for (const p of parts) {
      const vals = 'values' in p ? p.values : [p.literal];
      acc = acc.flatMap((prefix) => vals.map((v) => prefix + v));
    }
    names.push(...acc);
  }
  return { ok: true, names };
}
