// Small formatting helpers shared by the renderers.

/** Whether the text is a time Date can read. */
export function isTime(iso: string): boolean {
  return !Number.isNaN(Date.parse(iso));
}

/** `2026-11-29` from an ISO time; the raw text when it is not a time. */
export function utcDate(iso: string): string {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? iso : new Date(ms).toISOString().slice(0, 10);
}

/** `2d 3h`, `5h 20m`, `45s`: the two largest units. */
export function duration(seconds: number): string {
  const units: [string, number][] = [
    ['d', 86400],
    ['h', 3600],
    ['m', 60],
    ['s', 1],
  ];
  const parts: string[] = [];
  let rest = Math.max(0, Math.floor(seconds));
  for (const [u, n] of units) {
    const q = Math.floor(rest / n);
    if (q > 0 || (parts.length === 0 && u === 's')) parts.push(`${q}${u}`);
    rest -= q * n;
    if (parts.length === 2) break;
  }
  return parts.join(' ');
}

/** `1 node`, `3 nodes`. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The first `max` items and how many were left out, so a 4,000-node list stays readable. */
export function capList<T>(items: readonly T[], max: number): { shown: T[]; more: number } {
  if (items.length <= max) return { shown: [...items], more: 0 };
  return { shown: items.slice(0, max), more: items.length - max };
}

export function sum(xs: readonly number[]): number {
  let s = 0;
  for (const x of xs) s += x;
  return s;
}

/** `1,234,567 bytes`, `4 MiB`: sizes as people read them. */
export function formatBytes(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  return `${n.toLocaleString('en-US')} bytes`;
}
