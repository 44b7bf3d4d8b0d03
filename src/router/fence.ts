// Fencing (docs/protocol.md#fencing): the lease the reconciler holds carries an
// epoch that grows at every change of holder. The router remembers the highest
// epoch any table came with and refuses a table from a lower one, so a holder
// that lost its lease (paused, partitioned, its clock wrong) cannot repoint
// traffic after its successor did. The check is the resource's, not the
// holder's: a stale holder cannot know it is stale, the router can.

import type { RouterEndpoints } from '../types/snapshot.js';

export type FenceResult = { ok: true; highest: number } | { ok: false; error: string };

/** A table without `lease` is epoch 0: an older reconciler works until the router has seen an epoch. */
export function epochOf(table: RouterEndpoints): number {
  return table.lease?.epoch ?? 0;
}

/** Whether a table with `table`'s lease may replace the one in service, and the highest epoch after it. */
export function fence(highest: number, table: RouterEndpoints): FenceResult {
  const epoch = epochOf(table);
  if (epoch < highest) return { ok: false, error: `fenced: epoch ${epoch} < ${highest}` };
  return { ok: true, highest: epoch };
}
