import type { State } from '../types/state.js';

/** How long a failed start steers placement of that model away from the node. */
export const FAILURE_MEMORY_MS = 30 * 60 * 1000;

/** model -> nodes where it failed to start within the last 30 minutes before `now`. */
export function recentFailures(state: State, now: string): (model: string) => ReadonlySet<string> {
  const nowMs = Date.parse(now);
  const byModel = new Map<string, Set<string>>();
  for (const f of state.startFailures) {
    const at = Date.parse(f.at);
    if (!(nowMs - at < FAILURE_MEMORY_MS)) continue;
    const set = byModel.get(f.model) ?? new Set<string>();
    set.add(f.node);
    byModel.set(f.model, set);
  }
  const none: ReadonlySet<string> = new Set();
  return (model) => byModel.get(model) ?? none;
}

/**
 * node -> ports of starts that failed there within the last 30 minutes before `now`.
 * A port another process holds fails every start that is given it; the next
 * start on that node takes the next port instead of failing the same way
 * (docs/placement.md#3-place-what-is-missing).
 */
export function recentFailedPorts(state: State, now: string): (node: string) => ReadonlySet<number> {
  const nowMs = Date.parse(now);
  const byNode = new Map<string, Set<number>>();
  for (const f of state.startFailures) {
    if (f.port === undefined || !(nowMs - Date.parse(f.at) < FAILURE_MEMORY_MS)) continue;
    const set = byNode.get(f.node) ?? new Set<number>();
    set.add(f.port);
    byNode.set(f.node, set);
  }
  const none: ReadonlySet<number> = new Set();
  return (node) => byNode.get(node) ?? none;
}
