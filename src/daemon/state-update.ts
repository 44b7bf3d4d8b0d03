// The part of .llmgw/state.json a tick owns (CONTRACT §2, §10): when each node
// went unreachable, and recent start failures, which steer the next placement
// of that model away from that node for 30 minutes. What was notified belongs
// to src/notify; this never touches it.

import type { ApplyOutcome } from '../apply/outcome.js';
import type { Snapshot } from '../types/snapshot.js';
import type { State, StartFailure } from '../types/state.js';

/** How long a failed start steers placement away from its node. */
export const START_FAILURE_MEMORY_MS = 30 * 60_000;

/** unreachableSince as the snapshot saw it: a node that answered is dropped, one never seen has no time to keep. */
export function unreachableFromSnapshot(snapshot: Snapshot): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of snapshot.nodes) if (!n.reachable && n.unreachableSince) out[n.name] = n.unreachableSince;
  return out;
}

/** The failed starts of this apply, one per failing node. */
export function startFailuresOf(outcome: ApplyOutcome, at: string): StartFailure[] {
  return outcome.failures
    .filter((f) => f.op === 'start' && f.replica !== null && f.model !== null)
    .map((f) => ({ model: f.model!, node: f.host, replica: f.replica!, at, error: f.error }));
}

export function updateState(prev: State, input: { snapshot: Snapshot; outcome: ApplyOutcome; now: Date }): State {
  const cutoff = input.now.getTime() - START_FAILURE_MEMORY_MS;
  const kept = prev.startFailures.filter((f) => Date.parse(f.at) > cutoff);
  return {
    ...prev,
    unreachableSince: unreachableFromSnapshot(input.snapshot),
    // Whole seconds, as every other time llmgw commits.
    startFailures: [...kept, ...startFailuresOf(input.outcome, input.now.toISOString().replace(/\.\d{3}Z$/, 'Z'))],
  };
}
