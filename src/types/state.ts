// .llmgw/state.json: the little that must survive a restart (docs/config.md).
// Everything else is re-observed each tick.

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
}

export function emptyState(): State {
  return { version: 1, unreachableSince: {}, startFailures: [], notified: {}, everRunning: [] };
}
