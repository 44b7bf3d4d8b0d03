// GPU-hours from llmgw's commits (docs/commands.md#llmgw-report). Pure: the
// history is read elsewhere (history.ts) and handed in as data.
//
// Why the history is exact: a tick commits whenever STATUS.md would change
// (idle replicas included) and at least once per UTC date, so between two
// consecutive commits of llmgw's the buckets did not change. Each interval
// counts at the EARLIER commit's fleet, for at most 25 hours: beyond that the
// reconciler was not running, and the time is `unobserved` rather than a
// guess (a stopped reconciler invents nothing).

import { buildFleet } from '../fleet/index.js';
import type { Config } from '../types/config.js';
import type { Snapshot } from '../types/snapshot.js';
import type { State } from '../types/state.js';
import { FLEET_BUCKETS, MODEL_BUCKETS, emptyFleetCounts, emptyModelCounts, gpuCounts, type FleetCounts, type GpuCounts, type ModelCounts } from './buckets.js';

/** How long one commit may vouch for the fleet: a day and an hour, as a tick commits at least once per UTC date. */
export const MAX_SPAN_MS = 25 * 3_600_000;

/** One commit of llmgw's, as the fleet model needs it. */
export interface LedgerCommit {
  /** When the tick made it (ISO). */
  time: string;
  snapshot: Snapshot;
  state: State;
  /** cluster.yaml and models.yaml at that commit, parsed. */
  config: Config;
}

export interface LedgerRange {
  /** Inclusive, ISO. */
  since: string;
  /** Exclusive, ISO. */
  until: string;
}

export interface ModelHours extends ModelCounts {
  model: string;
}

export interface GpuHours {
  since: string;
  until: string;
  /** Sorted by name: every model of a config in range, and any model that held GPUs. */
  models: ModelHours[];
  fleet: FleetCounts;
}

const HOUR_MS = 3_600_000;

/** Two decimals, half away from zero: the one rounding every format shows. */
export function hours(gpuMs: number): number {
  return Math.round(gpuMs / HOUR_MS / 0.01) / 100;
}

/** The part of [a, b) inside [lo, hi), in ms. */
function overlap(a: number, b: number, lo: number, hi: number): number {
  return Math.max(0, Math.min(b, hi) - Math.max(a, lo));
}

/** One commit reduced to what the ledger needs: its time, its GPUs by bucket, the models its config names. */
export interface CountedCommit {
  time: string;
  counts: GpuCounts;
  models: readonly string[];
}

/**
 * A commit's fleet, counted: judged at its snapshot's `observedAt`, the time the
 * tick rendered STATUS.md at (so an idle replica here is one STATUS.md listed),
 * or at the commit's time when the snapshot has none.
 */
export function countCommit(c: LedgerCommit): CountedCommit {
  const judgedAt = Number.isNaN(Date.parse(c.snapshot.observedAt)) ? c.time : c.snapshot.observedAt;
  return { time: c.time, counts: gpuCounts(buildFleet(c.config, c.snapshot, c.state, judgedAt)), models: c.config.models.map((m) => m.name) };
}

/**
 * GPU-hours per model and for the fleet in `range`. `commits` may be in any
 * order and may reach outside the range: a commit before `since` counts
 * into it (for at most 25 hours), one after `until` only ends its
 * predecessor's interval. Time in the range no commit covers is
 * `unobserved`, counted at the GPUs of the commit before the gap (before the
 * first commit, the first one's): how much of the fleet nobody saw. With no
 * commit at all, nothing is known and every figure is 0.
 */
export function gpuHours(commits: readonly LedgerCommit[], range: LedgerRange): GpuHours {
  return gpuHoursOf(commits.map(countCommit), range);
}

/** gpuHours of commits already counted (a year of snapshots need not be held at once: history.ts counts each as it reads it). */
export function gpuHoursOf(commits: readonly CountedCommit[], range: LedgerRange): GpuHours {
  const lo = Date.parse(range.since);
  const hi = Date.parse(range.until);
  const ordered = commits.map((c, i) => ({ c, i, t: Date.parse(c.time) })).sort((a, b) => a.t - b.t || a.i - b.i);
  const fleetMs = emptyFleetCounts();
  const modelMs = new Map<string, ModelCounts>();
  const named = new Set<string>();

  for (const [k, { c, t }] of ordered.entries()) {
    const next = ordered[k + 1]?.t ?? Infinity;
    const end = Math.min(next, t + MAX_SPAN_MS);
    const seen = overlap(t, end, lo, hi);
    const blind = overlap(end, next, lo, hi);
    if (t < hi && end > lo) for (const m of c.models) named.add(m);
    if (seen === 0 && blind === 0) continue;
    const g = c.counts;
    for (const b of FLEET_BUCKETS) fleetMs[b] += g.fleet[b] * seen;
    fleetMs.unobserved += g.total * blind;
    for (const [model, counts] of g.models) {
      let m = modelMs.get(model);
      if (!m) modelMs.set(model, (m = emptyModelCounts()));
      for (const b of MODEL_BUCKETS) m[b] += counts[b] * seen;
    }
  }
  const first = ordered[0];
  if (first !== undefined) {
    // Before the first commit of all: nobody was looking yet.
    const before = overlap(-Infinity, first.t, lo, hi);
    if (before > 0) fleetMs.unobserved += first.c.counts.total * before;
  }

  for (const m of modelMs.keys()) named.add(m);
  const models = [...named].sort().map((model): ModelHours => {
    const ms = modelMs.get(model) ?? emptyModelCounts();
    return { model, serving: hours(ms.serving), idle: hours(ms.idle), transit: hours(ms.transit) };
  });
  const fleet = emptyFleetCounts();
  for (const b of FLEET_BUCKETS) fleet[b] = hours(fleetMs[b]);
  return { since: range.since, until: range.until, models, fleet };
}
