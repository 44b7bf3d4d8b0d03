// The capacity bar: a fixed number of cells shared out among the buckets. Every
// bucket that has a GPU gets at least one cell, so one unhealthy card in a
// thousand still shows; the rest go by largest remainder, ties in bucket order,
// so the same numbers always draw the same bar.

import type { CapacityRow } from '../../status/types.js';

export type BarBucket = 'used' | 'unhealthy' | 'other' | 'unreachable' | 'cordoned' | 'free';

/** Drawing order: what is taken or broken first, free room last. */
export const BAR_ORDER: readonly BarBucket[] = ['used', 'unhealthy', 'other', 'unreachable', 'cordoned', 'free'];

/** Distinct characters, so the bar reads without colour too. */
export const BAR_CHARS: Record<BarBucket, string> = { used: '█', unhealthy: '×', other: '▓', unreachable: '?', cordoned: '▒', free: '░' };

export const BAR_WIDTH = 20;

export function barCells(row: CapacityRow, width = BAR_WIDTH): Record<BarBucket, number> {
  const cells: Record<BarBucket, number> = { used: 0, unhealthy: 0, other: 0, unreachable: 0, cordoned: 0, free: 0 };
  // A row from a report written before a bucket existed (`other`) lacks it: read as 0.
  const count = (b: BarBucket): number => countIn(row, b);
  const present = BAR_ORDER.filter((b) => count(b) > 0);
  if (row.total <= 0 || present.length === 0) return cells;
  const exact = (b: BarBucket): number => (count(b) * width) / row.total;
  for (const b of present) cells[b] = Math.max(1, Math.floor(exact(b)));
  let left = width - present.reduce((s, b) => s + cells[b], 0);
  const byRemainder = [...present].sort((a, b) => (exact(b) % 1) - (exact(a) % 1));
  for (let i = 0; left > 0; i = (i + 1) % byRemainder.length, left--) {
    const b = byRemainder[i];
    if (b !== undefined) cells[b] += 1;
  }
  // The minimum of one cell may overshoot: take it back from the widest buckets.
  while (left < 0) {
    const widest = present.reduce((w, b) => (cells[b] > cells[w] ? b : w));
    cells[widest] -= 1;
    left += 1;
  }
  return cells;
}

/** Bucket segments in drawing order, for renderers that colour each one. */
export function barSegments(row: CapacityRow, width = BAR_WIDTH): { bucket: BarBucket; text: string }[] {
  const cells = barCells(row, width);
  return BAR_ORDER.filter((b) => cells[b] > 0).map((b) => ({ bucket: b, text: BAR_CHARS[b].repeat(cells[b]) }));
}

/** The bar as plain characters, always `width` long. */
export function barText(row: CapacityRow, width = BAR_WIDTH): string {
  const text = barSegments(row, width)
    .map((s) => s.text)
    .join('');
  return text.padEnd(width, ' ');
}

/** Typed wide on purpose: a row as read back from an older report may lack a bucket. */
function countIn(row: Partial<Record<BarBucket, number>>, b: BarBucket): number {
  return row[b] ?? 0;
}
