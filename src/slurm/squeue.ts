// `squeue --json` (Slurm 22.05, data parser v0.0.38) -> jobs: name, state,
// partition, the GPUs each holds on each node, and what a pending one asks for.
// 22.05's JSON ignores squeue's filters and lists jobs ended in the last
// MinJobAge too: the states are read here, never assumed.

import { MAX_HOSTLIST_TEXT, MAX_JOB_GPUS, MAX_SLURM_JOBS } from './limits.js';
import { objectAt, parseJsonObject, SlurmParseError } from './parse-error.js';
import { gpuIndicesInGres, gpusInGres } from './gres.js';
import { slurmText } from './text.js';

export interface SqueueJob {
  id: string;
  name: string;
  /** Lowercase: pending, running, completing, cancelled, … */
  state: string;
  partitions: string[];
  /** Where it holds GPUs, by Slurm node name (none while pending); `indices` as Slurm numbers them, when it says. */
  nodes: { name: string; gpus: number; indices: number[] }[];
  /** Slurm's state_reason: why a pending job waits (Resources, Priority, JobHeldUser, Dependency, …). */
  reason: string;
  /** The GPUs it asks for in all (from tres_per_job, else per node times nodes, else per task times tasks). */
  gpusAsked: number;
  /** Slurm's hostlists of the nodes a job must run on (`--nodelist`) and must not (`--exclude`); '' when none. */
  requiredNodes: string;
  excludedNodes: string;
}

/** States in which a job holds what it was given. */
const HOLDING = new Set(['running', 'suspended', 'completing', 'configuring', 'stopped', 'resizing']);

export function holdsResources(job: SqueueJob): boolean {
  return HOLDING.has(job.state);
}

/** Pending for reasons no free GPU would end: held, waiting on another job, or not yet allowed to start. */
const NOT_WAITING_FOR_GPUS = new Set(['JobHeldUser', 'JobHeldAdmin', 'Dependency', 'DependencyNeverSatisfied', 'BeginTime']);

/** A pending job that GPUs would let start: what `pending` counts and yield makes room for. */
export function waitsForResources(job: SqueueJob): boolean {
  return job.state === 'pending' && !NOT_WAITING_FOR_GPUS.has(job.reason);
}

/** A hostlist as Slurm printed it: a string of hostlist characters, else none (never clipped to half a list). */
function hostlistText(v: unknown): string {
  return typeof v === 'string' && v.length <= MAX_HOSTLIST_TEXT && /^[A-Za-z0-9._,[\]-]*$/.test(v) ? v : '';
}

function count(v: unknown): number {
  return typeof v === 'number' && Number.isInteger(v) && v > 0 ? Math.min(v, MAX_JOB_GPUS) : 0;
}

function jobState(v: unknown): string {
  // v0.0.39+: a list, base state first.
  const word: unknown = Array.isArray(v) ? (v as unknown[])[0] : v;
  return slurmText(word).toLowerCase();
}

function gpusAsked(j: Record<string, unknown>): number {
  const perJob = gpusInGres(j.tres_per_job);
  if (perJob > 0) return perJob;
  const perNode = gpusInGres(j.tres_per_node);
  if (perNode > 0) return Math.min(MAX_JOB_GPUS, perNode * Math.max(1, count(j.node_count)));
  const perTask = gpusInGres(j.tres_per_task);
  return Math.min(MAX_JOB_GPUS, perTask * Math.max(1, count(j.tasks)));
}

/** Per allocated node, in job_resources' order: its gres_detail entry (`gpu:4(IDX:0-3)`) gives the GPUs there. */
function heldNodes(j: Record<string, unknown>): { name: string; gpus: number; indices: number[] }[] {
  const allocated = objectAt(j.job_resources).allocated_nodes;
  const details: unknown[] = Array.isArray(j.gres_detail) ? (j.gres_detail as unknown[]) : [];
  const perNode = gpusInGres(j.tres_per_node);
  const nodes = Array.isArray(allocated) ? allocated.slice(0, 10_000) : [];
  return nodes.flatMap((a, i) => {
    const name = slurmText(objectAt(a).nodename);
    if (name === '') return [];
    const detail: unknown = details[i];
    return [{ name, gpus: detail === undefined ? perNode : gpusInGres(detail), indices: gpuIndicesInGres(detail) }];
  });
}

export function parseSqueue(text: string): SqueueJob[] {
  const doc = parseJsonObject('squeue --json', text);
  if (!Array.isArray(doc.jobs)) throw new SlurmParseError('`squeue --json` gave no jobs list');
  if (doc.jobs.length > MAX_SLURM_JOBS) throw new SlurmParseError(`\`squeue --json\` lists more than ${MAX_SLURM_JOBS} jobs`);
  const out: SqueueJob[] = [];
  for (const item of doc.jobs) {
    const j = objectAt(item);
    const id = typeof j.job_id === 'number' && Number.isInteger(j.job_id) ? String(j.job_id) : slurmText(j.job_id);
    if (!/^[0-9]{1,12}$/.test(id)) continue;
    const state = jobState(j.job_state);
    out.push({
      id,
      name: slurmText(j.name),
      state,
      reason: slurmText(j.state_reason),
      partitions: slurmText(j.partition)
        .split(',')
        .filter((p) => p !== ''),
      nodes: HOLDING.has(state) ? heldNodes(j) : [],
      gpusAsked: gpusAsked(j),
      requiredNodes: state === 'pending' ? hostlistText(j.required_nodes) : '',
      excludedNodes: state === 'pending' ? hostlistText(j.excluded_nodes) : '',
    });
  }
  return out;
}
