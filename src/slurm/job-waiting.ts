// A submitted job whose agent has not recorded its replica yet (docs/slurm.md#jobs-mode-mode-jobs):
// Slurm holds it (pending for resources, or starting) but no node reports it,
// so the fleet would see the replica missing and the next tick would submit
// it again. Such a rank is read as what it is — a replica `starting` where its
// placement of record says, with its job — for planning only: the snapshot
// llmgw commits keeps what the nodes said. A job Slurm ended before its agent
// ran is no such rank: the replica is gone and is placed afresh.
//
// The other way round: a rank a report shows alive (or a silent node's last
// report does) whose job Slurm says has ended (preempted, node failure, time
// limit, cancelled) is read as `failed`, so it is replaced at this tick rather
// than once its node answers again or is lost.

import type { Config } from '../types/config.js';
import type { AgentReport, NodeObservation, ReplicaReport, Snapshot } from '../types/snapshot.js';
import type { PlacementRecord } from '../types/state.js';
import { jobEnded, llmgwJobs } from './job-name.js';

function waitingRank(id: string, rec: PlacementRecord, rank: number, jobId: string): ReplicaReport {
  const k = rec.ranks.find((r) => r.rank === rank);
  return {
    id,
    model: rec.model,
    gpus: [...(k?.gpus ?? [])],
    state: 'starting',
    rank,
    ...(rec.port === undefined ? {} : { port: rec.port }),
    ...(rec.spec === undefined ? {} : { spec: rec.spec }),
    slurmJob: jobId,
  };
}

/** The snapshot with each recorded rank that only Slurm knows of (its job live, no node reporting it) added to its node's report as `starting`; the snapshot itself outside jobs mode or when there is none. */
export function withWaitingJobs(snapshot: Snapshot, config: Config, records: Readonly<Record<string, PlacementRecord>> | undefined): Snapshot {
  if (config.cluster.slurm?.mode !== 'jobs' || snapshot.slurm === undefined || records === undefined) return snapshot;
  const reported = new Set<string>();
  for (const n of snapshot.nodes) {
    const report = n.reachable ? n.report : n.lastReport;
    for (const r of report?.replicas ?? []) reported.add(`${r.id}/${r.rank ?? 0}`);
  }
  const added = new Map<string, ReplicaReport[]>();
  for (const [key, job] of llmgwJobs(snapshot.slurm.jobs)) {
    if (jobEnded(job.state) || reported.has(key)) continue;
    const cut = key.lastIndexOf('/');
    const id = key.slice(0, cut);
    const rank = Number(key.slice(cut + 1));
    const rec = Object.hasOwn(records, id) ? records[id] : undefined;
    const node = rec?.ranks.find((r) => r.rank === rank)?.node;
    // Only llmgw's own (a record), and only where it was placed: a job on another node is not this rank.
    if (rec === undefined || node === undefined || (job.node !== '' && job.node !== node)) continue;
    added.set(node, [...(added.get(node) ?? []), waitingRank(id, rec, rank, job.id)]);
  }
  if (added.size === 0) return snapshot;
  const nodes = snapshot.nodes.map((n): NodeObservation => {
    const more = added.get(n.name);
    // A silent node's ranks stay as its last report had them: nothing is added to what cannot be seen.
    if (more === undefined || !n.reachable) return n;
    const report: AgentReport = { ...n.report, replicas: [...n.report.replicas, ...more] };
    return { ...n, report };
  });
  return { ...snapshot, nodes };
}

function endedIn(r: ReplicaReport, ended: ReadonlyMap<string, string>): ReplicaReport {
  const state = r.slurmJob === undefined ? undefined : ended.get(r.slurmJob);
  if (state === undefined || r.state === 'failed') return r;
  return { ...r, state: 'failed', error: `Slurm job ${r.slurmJob ?? ''} ended (${state})` };
}

/** The snapshot with each reported rank whose Slurm job has ended read as failed; the snapshot itself when there is none. */
export function withEndedJobs(snapshot: Snapshot, config: Config): Snapshot {
  if (config.cluster.slurm?.mode !== 'jobs' || snapshot.slurm === undefined) return snapshot;
  const ended = new Map(snapshot.slurm.jobs.filter((j) => jobEnded(j.state)).map((j) => [j.id, j.state]));
  if (ended.size === 0) return snapshot;
  const mark = (report: AgentReport): AgentReport => {
    const replicas = report.replicas.map((r) => endedIn(r, ended));
    return replicas.some((r, i) => r !== report.replicas[i]) ? { ...report, replicas } : report;
  };
  const nodes = snapshot.nodes.map((n): NodeObservation => {
    const report = n.reachable ? n.report : n.lastReport;
    if (report === null) return n;
    const marked = mark(report);
    if (marked === report) return n;
    return n.reachable ? { ...n, report: marked } : { ...n, lastReport: marked };
  });
  return nodes.some((n, i) => n !== snapshot.nodes[i]) ? { ...snapshot, nodes } : snapshot;
}
