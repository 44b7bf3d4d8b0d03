// A node's condition (docs/placement.md). An unreachable node's last report is
// assumed still true for `lostAfter`; after that, or when nobody knows since
// when it has been silent, it is lost and its replicas count as gone. Unknown
// is treated as lost on purpose: keeping a silent node's replicas "for now"
// forever is how a model stays down without anyone placing it elsewhere.

import type { FleetSlurm, NodeCondition } from '../types/fleet.js';
import type { AgentReport, NodeObservation, UnreachableReason } from '../types/snapshot.js';

export interface ObservedCondition {
  condition: NodeCondition;
  unreachableSince: string | null;
  error: string | null;
  /** The class of `error` (docs/status.md); null when reachable. */
  reason: UnreachableReason | null;
  report: AgentReport | null;
  /** What Slurm says of the node (src/fleet/slurm.ts); absent without cluster.yaml `slurm:`. */
  slurm?: FleetSlurm;
}

/**
 * `obs` undefined = a node of cluster.yaml missing from the snapshot: unreachable
 * since an unknown time, hence lost. `rememberedSince` (state.json) fills in a
 * snapshot that does not know when the outage began.
 */
export function observedCondition(
  obs: NodeObservation | undefined,
  rememberedSince: string | undefined,
  nowMs: number,
  lostAfterMs: number,
): ObservedCondition {
  if (obs === undefined) {
    return { condition: 'lost', unreachableSince: null, error: 'not in the snapshot', reason: 'unknown', report: null };
  }
  if (obs.reachable) return { condition: 'reachable', unreachableSince: null, error: null, reason: null, report: obs.report };
  const since = obs.unreachableSince ?? rememberedSince ?? null;
  const sinceMs = since === null ? NaN : Date.parse(since);
  const lost = Number.isNaN(sinceMs) || nowMs - sinceMs >= lostAfterMs;
  return {
    condition: lost ? 'lost' : 'unreachable',
    unreachableSince: Number.isNaN(sinceMs) ? null : since,
    error: obs.error,
    reason: obs.reason ?? 'unknown',
    report: obs.lastReport ?? null,
  };
}
