// The globs of an engine's `allowArgs` (docs/config.md): `*` any run of
// characters, `?` one, `[a-z0-9]` one of a class, `[!…]` (or `[^…]`) one not in
// it, `\x` the character x itself. A glob matches a whole arg. Matching walks
// glob and arg together (the classic wildcard algorithm, one backtrack point),
// so it costs at most length × length however many stars a PR writes: a
// RegExp of `*a*a*a*b` can take exponential time.

type Token = { kind: 'char'; c: string } | { kind: 'one' } | { kind: 'star' } | { kind: 'class'; test: (c: string) => boolean };

export type CompiledGlob = { ok: true; glob: Glob } | { ok: false; error: string };

export interface Glob {
  tokens: Token[];
}

/** The class from just after `[` up to its `]` (as characters), or null when it never closes. */
function readClass(chars: readonly string[], start: number): { body: string[]; end: number } | null {
  let i = start;
  if (chars[i] === '!' || chars[i] === '^') i++;
  // A `]` first in the class is part of it, as in shells.
  if (chars[i] === ']') i++;
  for (; i < chars.length; i++) {
    if (chars[i] === '\\') i++;
    else if (chars[i] === ']') return { body: chars.slice(start, i), end: i };
  }
  return null;
}

function classTest(body: readonly string[]): ((c: string) => boolean) | string {
  const negate = body[0] === '!' || body[0] === '^';
  const chars = negate ? body.slice(1) : body;
  const singles = new Set<string>();
  const ranges: [string, string][] = [];
  for (let i = 0; i < chars.length; i++) {
    let c = chars[i] ?? '';
    if (c === '\\' && i + 1 < chars.length) c = chars[++i] ?? '';
    if (chars[i + 1] === '-' && i + 2 < chars.length) {
      let hi = chars[i + 2] ?? '';
      i += 2;
      if (hi === '\\' && i + 1 < chars.length) hi = chars[++i] ?? '';
      if (hi < c) return `has a range ${c}-${hi} that runs backwards`;
      ranges.push([c, hi]);
    } else singles.add(c);
  }
  if (singles.size === 0 && ranges.length === 0) return 'has an empty class []';
  return (c) => (singles.has(c) || ranges.some(([lo, hi]) => c >= lo && c <= hi)) !== negate;
}

export function compileGlob(glob: string): CompiledGlob {
  const tokens: Token[] = [];
  const chars = [...glob];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i] ?? '';
    if (c === '*') {
      if (tokens[tokens.length - 1]?.kind !== 'star') tokens.push({ kind: 'star' });
    } else if (c === '?') tokens.push({ kind: 'one' });
    else if (c === '\\') {
      if (i + 1 >= chars.length) return { ok: false, error: 'ends with a lone \\' };
      tokens.push({ kind: 'char', c: chars[++i] ?? '' });
    } else if (c === '[') {
      const cls = readClass(chars, i + 1);
      if (!cls) return { ok: false, error: 'has a [ with no closing ]' };
      const test = classTest(cls.body);
      if (typeof test === 'string') return { ok: false, error: test };
      tokens.push({ kind: 'class', test });
      i = cls.end;
    } else tokens.push({ kind: 'char', c });
  }
  return { ok: true, glob: { tokens } };
}

function matchOne(t: Token, c: string): boolean {
  if (t.kind === 'one') return true;
  if (t.kind === 'char') return t.c === c;
  if (t.kind === 'class') return t.test(c);
  return false;
}

/** Whether the whole of `text` matches `glob`. */
export function globMatches(glob: Glob, text: string): boolean {
  const s = [...text];
  const p = glob.tokens;
  let si = 0;
  let pi = 0;
  let starPi = -1;
  let starSi = 0;
  while (si < s.length) {
    const t = p[pi];
    if (t?.kind === 'star') {
      starPi = pi++;
      starSi = si;
    } else if (t !== undefined && matchOne(t, s[si] ?? '')) {
      pi++;
      si++;
    } else if (starPi >= 0) {
      pi = starPi + 1;
      si = ++starSi;
    } else return false;
  }
  while (p[pi]?.kind === 'star') pi++;
  return pi === p.length;
}
