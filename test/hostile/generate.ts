// The hostile-input suite's generator (docs/security.md, test/hostile/README.md):
// a seeded PRNG and mutations of valid inputs into malformed and hostile ones.
// `LLMGW_HOSTILE_SEED` picks the sequence (the router's suite in
// test/router/hostile.test.ts reads the same variable), `LLMGW_HOSTILE_COUNT`
// how many variants of each input kind a run tries (default 200). A failing
// variant names the seed and its index, and prints itself, escaped: rerun with
// that seed to get the very same inputs.

import { escapeTerminal } from '../../src/text/terminal-text.js';

export const SEED = Number(process.env.LLMGW_HOSTILE_SEED ?? 20261129);
export const COUNT = Math.max(200, Number(process.env.LLMGW_HOSTILE_COUNT ?? 200));

export interface Rng {
  next(): number;
  int(n: number): number;
  pick<T>(list: readonly T[]): T;
  chance(p: number): boolean;
}

/** mulberry32: small, seeded, the same sequence on every machine. */
export function rng(seed: number): Rng {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  return { next, int, pick: (list) => list[int(list.length)]!, chance: (p) => next() < p };
}

/** Text a terminal would act on, Markdown would render, or a parser would choke on. */
export const NASTY_TEXT = [
  '\x1b]0;pwned\x07',
  '\x1b[2J',
  '\r',
  '\n',
  '\x00',
  '\x07',
  '\x9b31m',
  '\u202e',
  '\u2066',
  '\u2028',
  '\ufeff',
  '\ud800',
  '<script>alert(1)</script>',
  '[x](http://evil.example)',
  '`',
  '|',
  '@channel',
  '<!channel>',
  '../../etc/passwd',
  '${LLMGW_CANARY_TOKEN}',
  '${HOME}',
  '{port}',
  '%s%n',
  '"',
  "'",
  '\\',
];

/** A string a hostile source might send: plain, nasty, huge, or a mix. */
export function hostileString(r: Rng): string {
  switch (r.int(6)) {
    case 0:
      return r.pick(NASTY_TEXT);
    case 1:
      return Array.from({ length: 1 + r.int(4) }, () => r.pick(NASTY_TEXT)).join('x');
    case 2:
      return 'a'.repeat(r.pick([0, 1, 255, 4097, 70_000]));
    case 3:
      return String.fromCharCode(...Array.from({ length: 1 + r.int(40) }, () => r.int(0x3000)));
    case 4:
      return `gpu-${r.int(1000)}`;
    default:
      // Never the canary itself: an input may quote its own text back; only a secret's value must never show.
      return `${r.pick(NASTY_TEXT)}${r.pick(NASTY_TEXT)}`.repeat(1 + r.int(30));
  }
}

/** A value of any JSON type, hostile where it can be. */
export function hostileValue(r: Rng, depth = 0): unknown {
  switch (r.int(depth > 3 ? 7 : 9)) {
    case 0:
      return null;
    case 1:
      return r.chance(0.5);
    case 2:
      return r.pick([0, -1, 1.5, 2 ** 53 + 1, -(2 ** 63), 1e308, Number.MAX_SAFE_INTEGER, 65536, 1024, -0]);
    case 3:
    case 4:
      return hostileString(r);
    case 5:
      return [];
    case 6:
      return {};
    case 7:
      return Array.from({ length: r.int(4) }, () => hostileValue(r, depth + 1));
    default:
      return Object.fromEntries(Array.from({ length: r.int(4) }, () => [hostileString(r).slice(0, 30), hostileValue(r, depth + 1)]));
  }
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

function paths(value: unknown, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(at);
  if (Array.isArray(value)) value.forEach((v, i) => paths(v, [...at, i], out));
  else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) paths(v, [...at, k], out);
  return out;
}

/** `fn` answers the new value, or DELETE to remove the key. */
function setAt(root: Json, path: (string | number)[], fn: (old: unknown) => unknown): Json {
  if (path.length === 0) {
    const v = fn(root);
    return (v === DELETE ? null : v) as Json;
  }
  const parentPath = path.slice(0, -1);
  let parent: unknown = root;
  for (const p of parentPath) parent = (parent as Record<string | number, unknown>)[p];
  const last = path[path.length - 1]!;
  const container = parent as Record<string | number, unknown>;
  const v = fn(container[last]);
  if (v === DELETE) {
    if (Array.isArray(container)) container.splice(last as number, 1);
    else Reflect.deleteProperty(container, last);
  } else container[last] = v;
  return root;
}

const DELETE = Symbol('delete');

/** `base` (a valid document) with 1–4 structural mutations: a key deleted, a value replaced, a list made huge, a string made hostile. */
export function mutateJson(base: unknown, r: Rng): unknown {
  let doc = JSON.parse(JSON.stringify(base)) as Json;
  const n = 1 + r.int(4);
  for (let k = 0; k < n; k++) {
    const all = paths(doc);
    const path = r.pick(all);
    const op = r.int(8);
    doc = setAt(doc, path, (old) => {
      if (op === 0 && path.length > 0) return DELETE;
      if (op === 1) return hostileValue(r);
      if (op === 2 && typeof old === 'string') return old + r.pick(NASTY_TEXT);
      if (op === 3 && typeof old === 'number') return r.pick([-old, old * 1e6, old + 0.5, 1e21, -1, 0]);
      if (op === 4 && Array.isArray(old) && old.length > 0) return Array.from({ length: r.pick([2, 50, 5000]) }, () => old[0]);
      if (op === 5 && old !== null && typeof old === 'object' && !Array.isArray(old)) return { ...old, [hostileString(r).slice(0, 40)]: hostileValue(r) };
      if (op === 6) return r.pick([[], {}, '', null, 'x']);
      return old;
    });
  }
  return doc;
}

/** Text-level damage to a serialized document: a byte changed, a cut, a doubled slice, something nasty inserted. */
export function mutateText(text: string, r: Rng): string {
  const at = () => r.int(Math.max(1, text.length));
  let out = text;
  const n = 1 + r.int(3);
  for (let k = 0; k < n; k++) {
    const i = at();
    switch (r.int(6)) {
      case 0:
        out = out.slice(0, i) + String.fromCharCode(r.int(256)) + out.slice(i + 1);
        break;
      case 1:
        out = out.slice(0, i) + r.pick(NASTY_TEXT) + out.slice(i);
        break;
      case 2:
        out = out.slice(0, i);
        break;
      case 3:
        out = out + out.slice(0, i);
        break;
      case 4:
        out = out.slice(0, i) + out.slice(i + 1 + r.int(20));
        break;
      default:
        out = out.slice(0, i) + r.pick(['1e999', '-1e999', 'NaN', '[[[[[[[[', '{"a":', '\t', '"\\ud800"', '9'.repeat(400)]) + out.slice(i);
    }
  }
  return out;
}

/** Each variant is checked; the first that fails throws one error naming the seed, the index and the input (escaped, cut). */
export async function eachVariant<T>(
  kind: string,
  count: number,
  make: (r: Rng, i: number) => T,
  check: (v: T, i: number) => void | Promise<void>,
  // JSON.stringify answers undefined for undefined (and functions), which its type leaves out.
  show: (v: T) => string = (v) => {
    const json: unknown = JSON.stringify(v);
    return typeof json === 'string' ? json : String(v);
  },
): Promise<void> {
  const r = rng(SEED ^ hash(kind));
  for (let i = 0; i < count; i++) {
    const v = make(r, i);
    try {
      await check(v, i);
    } catch (err) {
      const input = escapeTerminal(show(v)).slice(0, 600);
      const why = err instanceof Error ? err.message : String(err);
      throw new Error(`${kind} variant ${i} of seed ${SEED} (LLMGW_HOSTILE_SEED=${SEED} reproduces it) failed: ${escapeTerminal(why)}\n  input: ${input}`, {
        cause: err,
      });
    }
  }
}

/** A small stable hash, so each input kind draws its own sequence from one seed. */
export function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** RSS growth of this process, in MiB, since `from` (what a variant run may keep). */
export function rssGrowthMiB(from: number): number {
  return (process.memoryUsage().rss - from) / (1024 * 1024);
}
