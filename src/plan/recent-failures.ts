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
