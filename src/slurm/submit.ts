// Jobs mode's decisions (docs/slurm.md#jobs-mode-mode-jobs), pure: which Slurm
// jobs a plan submits and cancels, by name, and what each submission sends.
// The plan lists them (its `slurmJobs`) and the apply carries out exactly that
// list, so `llmgw plan` never shows a job the tick would not submit or cancel.
//
// A cancel names the job by what the node says first: the `slurmJob` its
// agent recorded for that rank is the job that runs it. Only when the node
// reports no such rank (the job is still pending, the node is silent) is the
// job found by name in Slurm's view, on that node or not yet on any; a
// duplicate's stop never goes by name, since the name is also the kept
// copy's. A job Slurm already ended is not cancelled again.

import type { Config, SlurmConfig } from '../types/config.js';
import type { Plan, PlanJob, StartAction, StopAction } from '../types/plan.js';
import type { AgentReport, Lease, SlurmJobView, SlurmView, StartRequest } from '../types/snapshot.js';
import { jobEnded, jobName, llmgwJobs } from './job-name.js';
import { jobScript } from './job-script.js';

/** Whether cluster.yaml runs replicas as Slurm jobs. */
export function jobsMode(config: Config): boolean {
  return config.cluster.slurm?.mode === 'jobs';
}

/** Slurm's name of a cluster.yaml node (`nodes[].slurmName`, else its name). */
export function slurmNodeName(slurm: SlurmConfig, node: string): string {
  return slurm.names[node] ?? node;
}

function submits(a: StartAction): PlanJob[] {
  return a.placement.map((p, rank) => ({ op: 'submit', name: jobName(a.replica, rank), replica: a.replica, rank, node: p.node, gpus: p.gpus.length }));
}

/** The job running one rank of a stop: the node's word, else Slurm's view by name; null when none is left to cancel. */
function jobOfRank(
  s: StopAction,
  rank: number,
  node: string,
  report: AgentReport | null,
  byId: ReadonlyMap<string, SlurmJobView>,
  byName: ReadonlyMap<string, SlurmJobView>,
): string | null {
  const reported = report?.replicas.find((r) => r.id === s.replica && (r.rank ?? 0) === rank);
  if (reported !== undefined) {
    const id = reported.slurmJob;
    if (id === undefined) return null;
    const seen = byId.get(id);
    return seen !== undefined && jobEnded(seen.state) ? null : id;
  }
  if (s.duplicate === true) return null;
  const job = byName.get(`${s.replica}/${rank}`);
  if (job === undefined || jobEnded(job.state)) return null;
  return job.node === '' || job.node === node ? job.id : null;
}

function cancels(s: StopAction, reportOf: (node: string) => AgentReport | null, view: SlurmView | undefined): PlanJob[] {
  if (s.phase === 'drain') return [];
  const jobs = view?.jobs ?? [];
  const byId = new Map(jobs.map((j) => [j.id, j]));
  const byName = llmgwJobs(jobs);
  return s.placement.flatMap((p, rank): PlanJob[] => {
    const id = jobOfRank(s, rank, p.node, reportOf(p.node), byId, byName);
    return id === null ? [] : [{ op: 'cancel', name: jobName(s.replica, rank), replica: s.replica, rank, node: p.node, gpus: p.gpus.length, id }];
  });
}

/**
 * The jobs a plan submits (every rank of every start) and cancels (every
 * rank of a stop that stops, not one that only drains, whose job still runs
 * or waits); undefined outside jobs mode, so such a plan reads as before.
 */
export function planJobs(plan: Plan, config: Config, view: SlurmView | undefined, reportOf: (node: string) => AgentReport | null): PlanJob[] | undefined {
  if (!jobsMode(config)) return undefined;
  return plan.actions.flatMap((a) => (a.op === 'start' ? submits(a) : cancels(a, reportOf, view)));
}

/** The plan with its Slurm jobs listed (jobs mode), or the plan itself. */
export function withPlanJobs(plan: Plan, config: Config, view: SlurmView | undefined, reportOf: (node: string) => AgentReport | null): Plan {
  const jobs = planJobs(plan, config, view, reportOf);
  return jobs === undefined ? plan : { ...plan, slurmJobs: jobs };
}

/** The sbatch script of one rank: the start request with the lease beside it, as `agent job` reads it. */
export function submissionScript(config: Config, start: { node: string; request: StartRequest }, lease: Lease | undefined): string {
  const slurm = config.cluster.slurm;
  // jobsMode() is checked before any submission; the config validator requires the partition in jobs mode.
  if (slurm === undefined || slurm.partition === undefined) throw new Error('jobs mode needs slurm.partition');
  return jobScript({
    replica: start.request.replica,
    rank: start.request.rank,
    node: slurmNodeName(slurm, start.node),
    gpus: start.request.gpus.length,
    partition: slurm.partition,
    ...(slurm.account === undefined ? {} : { account: slurm.account }),
    ...(slurm.qos === undefined ? {} : { qos: slurm.qos }),
    ...(slurm.reservation === undefined ? {} : { reservation: slurm.reservation }),
    agentCommand: config.cluster.agent.command,
    request: lease === undefined ? start.request : { ...start.request, lease },
  });
}
