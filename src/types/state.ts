// .llmgw/state.json: the little that must survive a restart (docs/config.md).
// Everything else is re-observed each tick.

import type { RolloutRecord } from './plan.js';

export interface StartFailure {
  model: string;
  node: string;
  replica: string;
  /** ISO time of the failure. */
  at: string;
  error: string;
}

export interface State {
  version: 1;
  /** node -> ISO time it was first seen unreachable in the current outage. */
  unreachableSince: Record<string, string>;
  /** Recent start failures; the planner avoids (model, node) for 30 minutes. */
  startFailures: StartFailure[];
  /**
   * Conditions already notified, so each event fires once per transition and a
   * restarted reconciler does not resend. Key: `<event>/<subject>` of the open
   * condition (e.g. `node.lost/gpu-a02`), value: ISO time it opened.
   */
  notified: Record<string, string>;
  /** Models that have had a running replica (a new model that never ran is not "down"). */
  everRunning: string[];
  /** Drains and rollouts under way (docs/notes/lifecycle.md); absent when there are none. */
  lifecycle?: LifecycleState;
}

/** What a stop that drains, and a rollout, must remember from one tick to the next. */
export interface LifecycleState {
  /** replica id -> its drain: out of the routers' tables, stopped once drained or past drainTimeout. */
  draining: Record<string, DrainEntry>;
  /** model -> its rollout. */
  rollouts: Record<string, RolloutRecord>;
}

export interface DrainEntry {
  /** When the drain began. */
  since: string;
  /** The stop's reason. */
  reason: string;
  /** When every router first took a table without it; null until then. */
  outOfTablesAt: string | null;
}

export function emptyState(): State {
  return { version: 1, unreachableSince: {}, startFailures: [], notified: {}, everRunning: [] };
}
