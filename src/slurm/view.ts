// What Slurm said, as the snapshot's `slurm` view (docs/slurm.md): keyed by
// cluster.yaml's node names, the GPUs other jobs hold per node, llmgw's own jobs,
// and the GPUs pending jobs ask for. Slurm unreachable: the last view holds for
// lostAfter, then it is emptied (every node's condition is then unknown).

import type { SlurmConfig } from '../types/config.js';
import { parseHostlist } from '../config/hostlist.js';
import type { SlurmJobView, SlurmNodeView, SlurmPendingNeed, SlurmView } from '../types/snapshot.js';
import { parseJobName } from './job-name.js';
import { MAX_JOB_GPUS, MAX_PENDING_IDS, MAX_RESERVATIONS_PER_NODE } from './limits.js';
import type { Reservation } from './reservations.js';
import type { SinfoNode } from './sinfo.js';
import { holdsResources, waitsForResources, type SqueueJob } from './squeue.js';

export interface SlurmReadings {
  sinfo: SinfoNode[];
  squeue: SqueueJob[];
  reservations: Reservation[];
}

/** Slurm node name -> cluster.yaml name, for the nodes of cluster.yaml. */
export function slurmNameMap(slurm: Pick<SlurmConfig, 'names'>, nodeNames: readonly string[]): Map<string, string> {
  return new Map(nodeNames.map((n) => [slurm.names[n] ?? n, n]));
}

function byNumericId(a: SlurmJobView, b: SlurmJobView): number {
  return Number(a.id) - Number(b.id) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** A reservation still to matter at `observedAt`: not ended (or, without readable times, active when read). */
function notEnded(r: Reservation, observedAt: string): boolean {
  if (r.end === null) return r.active;
  return Date.parse(r.end) > Date.parse(observedAt);
}

/** A hostlist's names that are cluster.yaml's (by their cluster.yaml names); a malformed one names none. */
function llmgwNames(hostlist: string, toLlmgw: ReadonlyMap<string, string>): string[] {
  const parsed = parseHostlist(hostlist);
  if (!parsed.ok) return [];
  return [...new Set(parsed.expand().flatMap((n) => toLlmgw.get(n) ?? []))].sort();
}

/** What yield needs of a pending job: its GPUs, and the nodes of cluster.yaml it may run on. */
function pendingNeed(j: SqueueJob, toLlmgw: ReadonlyMap<string, string>): SlurmPendingNeed {
  const need: SlurmPendingNeed = { id: j.id, gpus: j.gpusAsked, partitions: j.partitions };
  if (j.requiredNodes !== '') need.nodes = llmgwNames(j.requiredNodes, toLlmgw);
  const excluded = j.excludedNodes === '' ? [] : llmgwNames(j.excludedNodes, toLlmgw);
  if (excluded.length > 0) need.excluded = excluded;
  return need;
}

export function buildSlurmView(slurm: SlurmConfig, nodeNames: readonly string[], readings: SlurmReadings, observedAt: string): SlurmView {
  const toLlmgw = slurmNameMap(slurm, nodeNames);
  const nodes: Record<string, SlurmNodeView> = {};
  for (const n of readings.sinfo) {
    const name = toLlmgw.get(n.name);
    if (name === undefined || Object.hasOwn(nodes, name)) continue;
    nodes[name] = { state: n.state, reason: n.reason, gpusAllocated: 0, partitions: n.partitions };
  }
  const jobs: SlurmJobView[] = [];
  let pending = 0;
  const pendingJobs: string[] = [];
  const needs: SlurmPendingNeed[] = [];
  for (const j of readings.squeue) {
    if (parseJobName(j.name) !== null) {
      // One rank is one job on one node: its first allocated node is where it runs.
      const at = j.nodes[0];
      jobs.push({ id: j.id, name: j.name, node: at === undefined ? '' : (toLlmgw.get(at.name) ?? at.name), state: j.state, gpus: at?.gpus ?? j.gpusAsked });
      continue;
    }
    if (holdsResources(j)) {
      for (const held of j.nodes) {
        const entry = nodes[toLlmgw.get(held.name) ?? ''];
        if (!entry) continue;
        entry.gpusAllocated = Math.min(MAX_JOB_GPUS, entry.gpusAllocated + held.gpus);
        if (held.indices.length > 0) entry.gpuIndicesAllocated = [...new Set([...(entry.gpuIndicesAllocated ?? []), ...held.indices])].sort((a, b) => a - b);
      }
    } else if (waitsForResources(j) && (slurm.partition === undefined || j.partitions.includes(slurm.partition)) && j.gpusAsked > 0) {
      pending = Math.min(MAX_JOB_GPUS, pending + j.gpusAsked);
      if (pendingJobs.length < MAX_PENDING_IDS) {
        pendingJobs.push(j.id);
        needs.push(pendingNeed(j, toLlmgw));
      }
    }
  }
  for (const r of readings.reservations) {
    if (r.name === slurm.reservation || !notEnded(r, observedAt)) continue;
    for (const slurmName of r.nodes) {
      const entry = nodes[toLlmgw.get(slurmName) ?? ''];
      if (!entry) continue;
      const list = (entry.reservations ??= []);
      if (list.length < MAX_RESERVATIONS_PER_NODE) list.push({ name: r.name, start: r.start, end: r.end, active: r.active, flags: r.flags });
    }
  }
  const view: SlurmView = { reachable: true, nodes, jobs: jobs.sort(byNumericId), pending };
  if (pendingJobs.length > 0) {
    view.pendingJobs = pendingJobs;
    view.pendingNeeds = needs;
  }
  if (slurm.partition !== undefined) view.partition = slurm.partition;
  return view;
}

/**
 * Slurm did not answer: the previous view, marked unreachable, while it is
 * younger than lostAfter (counted from the first failure); past that, an empty
 * view, so no node is placeable on what Slurm said long ago.
 */
export function unreachableSlurmView(previous: SlurmView | undefined, error: string, now: Date, lostAfterMs: number, partition: string | undefined): SlurmView {
  const nowIso = now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const since = previous !== undefined && !previous.reachable ? (previous.unreachableSince ?? nowIso) : nowIso;
  const held = previous !== undefined && now.getTime() - Date.parse(since) < lostAfterMs;
  const base: SlurmView = held ? { ...previous, reachable: false } : { reachable: false, nodes: {}, jobs: [], pending: 0 };
  if (!held) {
    delete base.pendingJobs;
    delete base.pendingNeeds;
  }
  if (partition !== undefined) base.partition = partition;
  else delete base.partition;
  return { ...base, error, unreachableSince: since };
}
