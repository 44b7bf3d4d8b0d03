// state.json's `lifecycle` (docs/protocol.md#the-snapshot): checked against the state
// schema with the rest of the file (repo-files.ts: a broken part is the file's
// error, as for every other part), then normalized here; written with sorted
// keys, so an unchanged drain is unchanged bytes.

import type { RolloutRecord } from '../types/plan.js';
import type { DrainEntry, LifecycleState } from '../types/state.js';

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function drainEntry(v: unknown): DrainEntry | null {
  if (!isObj(v) || str(v.since) === undefined) return null;
  return { since: v.since as string, reason: str(v.reason) ?? 'stop', outOfTablesAt: str(v.outOfTablesAt) ?? null };
}

function rolloutRecord(v: unknown): RolloutRecord | null {
  if (!isObj(v) || str(v.spec) === undefined || !['canary', 'rolling', 'failed'].includes(v.stage as string)) return null;
  // The rest is checked where it is used: a record missing its hold simply begins the hold again.
  return v as unknown as RolloutRecord;
}

function sortedEntries<T>(rec: Record<string, T>): [string, T][] {
  return Object.entries(rec).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** `raw.lifecycle` of a state file, or undefined when absent or holding nothing usable. */
export function parseLifecycle(raw: unknown): LifecycleState | undefined {
  if (!isObj(raw)) return undefined;
  const draining: Record<string, DrainEntry> = {};
  const rollouts: Record<string, RolloutRecord> = {};
  for (const [id, v] of Object.entries(isObj(raw.draining) ? raw.draining : {})) {
    const e = drainEntry(v);
    if (e) draining[id] = e;
  }
  for (const [model, v] of Object.entries(isObj(raw.rollouts) ? raw.rollouts : {})) {
    const r = rolloutRecord(v);
    if (r) rollouts[model] = r;
  }
  return Object.keys(draining).length + Object.keys(rollouts).length > 0 ? { draining, rollouts } : undefined;
}

/** The lifecycle part as committed: keys sorted at every level llmgw keys by name. */
export function lifecycleJson(l: LifecycleState): LifecycleState {
  const rollouts = sortedEntries(l.rollouts).map(([model, r]): [string, RolloutRecord] => {
    const baseline = r.baseline ? Object.fromEntries(sortedEntries(r.baseline)) : undefined;
    return [model, baseline ? { ...r, baseline } : r];
  });
  return { draining: Object.fromEntries(sortedEntries(l.draining)), rollouts: Object.fromEntries(rollouts) };
}
