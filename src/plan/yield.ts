// Yield (docs/slurm.md#yield-yield-true), a pure decision the tick and the PR
// plan share (src/tick/plan.ts): with cluster.yaml `slurm.yield: true`, when jobs
// that are not llmgw's are pending for resources in `slurm.partition`, idle
// replicas above their `min` on nodes those jobs could use are stopped, lowest
// priority first, at most as many GPUs as the pending jobs ask for.
//
// Each pending job, in Slurm's order, gets its own budget: the GPUs it asks for.
// A replica counts all its GPUs against the budget of the first job it is
// yielded to, so no job is given more than it asked for and the sum stays
// within what the queue asks for. A busy replica is never yielded: only one
// idle enough to stop without counting against service (src/plan/idle-enough.ts),
// the same rule eviction and the blast-radius guard use, and with no request in
// flight at any router (a long stream began before idle.after is still use). Slurm's view must be
// fresh: on a view held while Slurm does not answer, nothing is yielded.

import type { ModelConfig } from '../types/config.js';
import type { Fleet, FleetReplica } from '../types/fleet.js';
import type { SlurmPendingNeed, SlurmView } from '../types/snapshot.js';
import { idleEnough } from './idle-enough.js';

export interface YieldStop {
  replica: string;
  model: string;
  /** GPUs the stop gives back (every rank's). */
  gpus: number;
  /** The pending Slurm job ids it is stopped for, ascending. */
  jobs: string[];
}

/** The stop's reason, as the plan, STATUS.md and the commit message show it: `yielded to Slurm job 3`. */
export function yieldReason(jobs: readonly string[]): string {
  return `yielded to Slurm ${jobs.length === 1 ? 'job' : 'jobs'} ${jobs.join(', ')}`;
}

/** The job ids a stop reason names, when it is a yield's; null otherwise. */
export function yieldedJobs(reason: string): string[] | null {
  const m = /^yielded to Slurm jobs? ([0-9, ]+)$/.exec(reason);
  return m ? (m[1] ?? '').split(', ') : null;
}

/** Whether `node` (cluster.yaml's name) is one the pending job could run on. */
function usableBy(need: SlurmPendingNeed, view: SlurmView, fleet: Fleet, node: string): boolean {
  const entry = Object.hasOwn(view.nodes, node) ? view.nodes[node] : undefined;
  // A node Slurm keeps llmgw off (drained, reserved) is no room for the job either.
  if (entry === undefined || fleet.nodeByName.get(node)?.slurm?.condition !== undefined) return false;
  if (need.excluded?.includes(node) === true || (need.nodes !== undefined && !need.nodes.includes(node))) return false;
  // Slurm runs a job only on nodes of its partitions, whatever its --nodelist says.
  return need.partitions.some((p) => entry.partitions.includes(p));
}

/** Requests in flight to it at some router now: busy, however long ago the request began. */
function inFlight(fleet: Fleet, id: string): boolean {
  return (fleet.routers ?? []).some((o) => o.reachable && (o.report.inflight?.[id] ?? 0) > 0);
}

function gpusOf(r: FleetReplica): number {
  return r.ranks.reduce((n, rank) => n + rank.gpus.length, 0);
}

/** GPUs of replicas draining because an earlier tick yielded them to `job`. */
function draining(fleet: Fleet, job: string): number {
  let n = 0;
  for (const r of fleet.replicas) if (r.draining && yieldedJobs(r.draining.reason)?.includes(job) === true) n += gpusOf(r);
  return n;
}

/** Replicas a model may give up: its decided count above its range's min (a fixed count gives none). */
function spareOf(m: ModelConfig, present: number): number {
  if (m.scale === undefined) return 0;
  return Math.max(0, Math.min(m.replicas, present) - m.scale.min);
}

export function decideYield(fleet: Fleet): YieldStop[] {
  const view = fleet.slurm;
  if (fleet.config.cluster.slurm?.yield !== true || view === undefined || !view.reachable) return [];
  const needs = (view.pendingNeeds ?? []).filter((n) => n.gpus > 0);
  if (needs.length === 0) return [];
  const byName = new Map(fleet.config.models.map((m) => [m.name, m]));
  const spare = new Map<string, number>();
  for (const m of fleet.config.models) {
    const present = fleet.replicas.filter((r) => r.model === m.name && !r.lost && !r.draining && r.state !== 'failed').length;
    spare.set(m.name, spareOf(m, present));
  }
  const candidates = fleet.replicas
    .filter(
      (r) =>
        (spare.get(r.model) ?? 0) > 0 && r.state === 'running' && !r.lost && !r.unreachable && !r.draining && idleEnough(fleet, r) && !inFlight(fleet, r.id),
    )
    .sort(
      (a, b) =>
        (byName.get(a.model)?.priority ?? 0) - (byName.get(b.model)?.priority ?? 0) ||
        (b.idleSeconds ?? 0) - (a.idleSeconds ?? 0) ||
        (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    );
  const chosen = new Map<string, YieldStop>();
  for (const need of needs) {
    // GPUs already yielded to this job and still draining count against what it asked for.
    let budget = need.gpus - draining(fleet, need.id);
    for (const r of candidates) {
      if (chosen.has(r.id) || (spare.get(r.model) ?? 0) <= 0) continue;
      const gpus = gpusOf(r);
      if (gpus === 0 || gpus > budget || !r.nodes.some((n) => usableBy(need, view, fleet, n))) continue;
      budget -= gpus;
      spare.set(r.model, (spare.get(r.model) ?? 0) - 1);
      chosen.set(r.id, { replica: r.id, model: r.model, gpus, jobs: [need.id] });
      if (budget === 0) break;
    }
  }
  return [...chosen.values()].sort((a, b) => (a.replica < b.replica ? -1 : a.replica > b.replica ? 1 : 0));
}
