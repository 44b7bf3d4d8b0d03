import type { StartFailure, State } from '../types/state.js';

/** How long a failed start steers placement of that model away from the node. */
export const FAILURE_MEMORY_MS = 30 * 60 * 1000;

/**
 * The failed starts of the last 30 minutes before `now`, grouped: `key` -> the
 * set of `value`s (a failure without a value counts for nothing). A time that
 * does not parse is no failure.
 */
function recentBy<V>(state: State, now: string, key: (f: StartFailure) => string, value: (f: StartFailure) => V | undefined): (k: string) => ReadonlySet<V> {
  const nowMs = Date.parse(now);
  const groups = new Map<string, Set<V>>();
  for (const f of state.startFailures) {
    const v = value(f);
    if (v === undefined || !(nowMs - Date.parse(f.at) < FAILURE_MEMORY_MS)) continue;
    const set = groups.get(key(f)) ?? new Set<V>();
    set.add(v);
    groups.set(key(f), set);
  }
  const none: ReadonlySet<V> = new Set();
  return (k) => groups.get(k) ?? none;
}

/** model -> nodes where it failed to start within the last 30 minutes before `now`. */
export function recentFailures(state: State, now: string): (model: string) => ReadonlySet<string> {
  return recentBy(
    state,
    now,
    (f) => f.model,
    (f) => f.node,
  );
}

/**
 * node -> ports of starts that failed there within the last 30 minutes before `now`.
 * A port another process holds fails every start that is given it; the next
 * start on that node takes the next port instead of failing the same way
 * (docs/placement.md#3-place-what-is-missing).
 */
export function recentFailedPorts(state: State, now: string): (node: string) => ReadonlySet<number> {
  return recentBy(
    state,
    now,
    (f) => f.node,
    (f) => f.port,
  );
}
