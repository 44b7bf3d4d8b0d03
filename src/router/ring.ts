// Consistent hashing with bounded loads (Mirrokni, Thorup, Zadimoghaddam 2018),
// as docs/operations.md#how-it-routes describes for `routing: prefix`. Each replica owns
// VNODES points on a 32-bit ring, placed by hashing its id alone: a table swap
// rebuilds the ring from the ids, so a key keeps its replica unless that replica
// left or a newcomer's point now falls before it. A key walks clockwise from its
// hash and takes the first replica whose in-flight count stays within
// LOAD_FACTOR × the mean after this request: one hot prompt cannot pile every
// request onto one replica, it spills to the next on the ring (the same next
// one each time, so the spill builds its own cache there).

import { hash32 } from './hash.js';

/** Points per replica: enough that 8 replicas split the ring within a few percent. */
const VNODES = 160;

/** No replica is given a request that would put it above this many times the mean in flight. */
export const LOAD_FACTOR = 1.25;

export interface Ring {
  /** Point positions, ascending. */
  readonly points: Uint32Array;
  /** owners[i] = index (into the replica list the ring was built from) of points[i]. */
  readonly owners: Uint16Array;
  readonly size: number;
}

/** The ring of `ids` (in table order: owner indexes refer to it). */
export function buildRing(ids: readonly string[]): Ring {
  const entries: [number, number][] = [];
  ids.forEach((id, owner) => {
    for (let v = 0; v < VNODES; v++) entries.push([hash32(`${id}#${v}`), owner]);
  });
  // Ties (two points on one position) are broken by owner id, so the order never
  // depends on the order of the table.
  entries.sort((a, b) => a[0] - b[0] || compareIds(ids[a[1]] ?? '', ids[b[1]] ?? ''));
  return {
    points: Uint32Array.from(entries, (e) => e[0]),
    owners: Uint16Array.from(entries, (e) => e[1]),
    size: ids.length,
  };
}

function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Index of the first point at or after `key` (wrapping to 0). */
export function firstPoint(ring: Ring, key: number): number {
  const p = ring.points;
  let lo = 0;
  let hi = p.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((p[mid] ?? 0) < key) lo = mid + 1;
    else hi = mid;
  }
  return lo === p.length ? 0 : lo;
}

/**
 * The replica (index) that takes `key`: walking clockwise, the first one not
 * `excluded` nor `out` (ejected) whose load + 1 stays within the bound; -1 when
 * every replica is excluded or out.
 * `loads[i]` is replica i's requests in flight.
 */
export function pickOnRing(ring: Ring, key: number, loads: ArrayLike<number>, excluded = -1, out: ArrayLike<number> | null = null): number {
  const n = ring.size;
  if (n === 0) return -1;
  let total = 0;
  for (let i = 0; i < n; i++) total += loads[i] ?? 0;
  const cap = Math.ceil((LOAD_FACTOR * (total + 1)) / n);
  const points = ring.points.length;
  let seen = 0;
  // `seen` bits are per replica; a ring walk meets every replica within one turn.
  const visited = n <= 32 ? null : new Uint8Array(n);
  let mask = 0;
  for (let step = 0, i = firstPoint(ring, key); step < points; step++, i = i + 1 === points ? 0 : i + 1) {
    const owner = ring.owners[i] ?? 0;
    if (visited ? visited[owner] : mask & (1 << owner)) continue;
    if (visited) visited[owner] = 1;
    else mask |= 1 << owner;
    if (owner !== excluded && !(out && out[owner]) && (loads[owner] ?? 0) + 1 <= cap) return owner;
    if (++seen === n) break;
  }
  // Only the excluded replica was under the bound (the least loaded replica always
  // is: its load + 1 <= floor(total / n) + 1 <= the bound): the least loaded other one.
  let best = -1;
  for (let i = 0; i < n; i++) if (i !== excluded && !(out && out[i]) && (best < 0 || (loads[i] ?? 0) < (loads[best] ?? 0))) best = i;
  return best;
}
