// The inverse of expandHostlist (config/hostlist.ts): many names as one short
// Slurm-style hostlist, `gpu-a[01-04,07],gpu-b[12-13]`, for a plan or a
// status line that must name hundreds of nodes (or replica ids, `m-[3-9]`)
// in a few characters. Expanding the result gives back exactly the names.

interface Parsed {
  prefix: string;
  digits: string;
  suffix: string;
}

/** The last run of digits splits a name; a name without one stays as it is. */
function parse(name: string): Parsed | null {
  const m = /^(.*?)(\d+)(\D*)$/.exec(name);
  return m ? { prefix: m[1] ?? '', digits: m[2] ?? '', suffix: m[3] ?? '' } : null;
}

/** Zero-padded numbers keep their width (`[01-10]`); others are written as they are (`[1-10]`). */
function width(digits: string): number {
  return digits.length > 1 && digits.startsWith('0') ? digits.length : 0;
}

function ranges(numbers: number[], pad: number): string {
  const text = (n: number) => String(n).padStart(pad, '0');
  // Runs of consecutive numbers, each [first, last].
  const runs: [number, number][] = [];
  for (const n of numbers) {
    const run = runs.at(-1);
    if (run !== undefined && n === run[1] + 1) run[1] = n;
    else runs.push([n, n]);
  }
  return runs.map(([lo, hi]) => (hi > lo ? `${text(lo)}-${text(hi)}` : text(lo))).join(',');
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Names a hostlist can carry; anything else (brackets, commas, spaces) is listed bare and never bracketed. */
const PLAIN = /^[A-Za-z0-9._-]+$/;

export function compressHostlist(names: Iterable<string>): string {
  const unique = [...new Set(names)];
  const bare: string[] = [];
  const groups = new Map<string, { prefix: string; suffix: string; pad: number; numbers: Set<number> }>();
  const padded = new Set<string>();
  const parsed: [string, Parsed][] = [];
  for (const name of unique) {
    const p = PLAIN.test(name) ? parse(name) : null;
    // Past 15 digits a number loses precision; such a name is listed as it is.
    if (p === null || p.digits.length > 15) bare.push(name);
    else {
      parsed.push([name, p]);
      if (width(p.digits) > 0) padded.add(`${p.prefix}\u0000${p.suffix}\u0000${p.digits.length}`);
    }
  }
  for (const [, p] of parsed) {
    // `10` next to `09` is the same width-2 list: `[09-10]` expands to both.
    let pad = width(p.digits);
    if (pad === 0 && padded.has(`${p.prefix}\u0000${p.suffix}\u0000${p.digits.length}`)) pad = p.digits.length;
    const key = `${p.prefix}\u0000${p.suffix}\u0000${pad}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { prefix: p.prefix, suffix: p.suffix, pad, numbers: new Set() }));
    g.numbers.add(Number(p.digits));
  }
  const parts = [...groups.values()].map((g) => {
    const numbers = [...g.numbers].sort((a, b) => a - b);
    const text = numbers.length === 1 ? String(numbers[0]).padStart(g.pad, '0') : `[${ranges(numbers, g.pad)}]`;
    return { sort: g.prefix + g.suffix + String(numbers[0]).padStart(20, '0'), text: `${g.prefix}${text}${g.suffix}` };
  });
  for (const name of bare) parts.push({ sort: name, text: name });
  return parts
    .sort((a, b) => cmp(a.sort, b.sort))
    .map((p) => p.text)
    .join(',');
}
