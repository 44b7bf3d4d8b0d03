// How far the router's JavaScript heap may grow past what it holds
// (docs/operations.md#router-sizing). V8 by default lets the heap reach up to
// four times its live size before a full collection when collecting is cheap;
// under a pipelining flood most of a router's heap is then the garbage of
// requests refused in the last second, not anything it holds. A fixed 1.5x
// keeps the router near what it holds, at the cost of more frequent collections
// (under bench:router's abuse mix, 65% of a core where it was 53%). It is not a
// cap: a router with 10,000 open streams still grows as far as it needs.

import { setFlagsFromString } from 'node:v8';

/** The heap may grow to live size × (1 + this / 100) before the next full collection. */
export const HEAP_GROWING_PERCENT = 50;

/** For the router's own process (its command): V8 reads the factor at every collection, so setting it at start applies it. */
export function tightenHeapGrowth(): void {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
