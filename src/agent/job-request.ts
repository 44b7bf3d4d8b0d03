// What `agent job` (docs/slurm.md#what-the-agent-does-inside-the-job) reads
// before it starts anything, as pure functions: the one start request on its
// stdin, and the GPUs Slurm gave the job from the job's environment.
//
// The request is one `start` entry of `agent apply` with the lease beside its
// fields; the whole `agent apply` request with exactly one start and no stop
// is taken too. Either way it goes through apply's own validator, so a job
// refuses exactly what a start over SSH refuses.

import type { Lease, StartRequest } from '../types/snapshot.js';
import type { AgentEnv } from './env.js';
import { checkApplyRequest, type Checked } from './request.js';

/** A start request is a few kilobytes; a job's stdin is its here-document, never a stream of data. */
export const MAX_JOB_REQUEST_BYTES = 1024 * 1024;

export interface JobRequest {
  start: StartRequest;
  lease?: Lease;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Parses and checks the job's request; errors name the field as `agent apply`'s would, less the `/start/0` of the wrapper. */
export function checkJobRequest(input: string): Checked<JobRequest> {
  if (Buffer.byteLength(input, 'utf8') > MAX_JOB_REQUEST_BYTES) return { ok: false, error: `request is larger than ${MAX_JOB_REQUEST_BYTES} bytes` };
  let value: unknown;
  try {
    value = JSON.parse(input);
  } catch {
    return { ok: false, error: 'request is not JSON' };
  }
  if (!isObject(value)) return { ok: false, error: 'request is not a JSON object' };
  if ('start' in value) {
    const whole = checkApplyRequest(input);
    if (!whole.ok) return whole;
    if (whole.value.start.length !== 1 || whole.value.stop.length !== 0) return { ok: false, error: 'a job runs exactly one start and no stop' };
    const start = whole.value.start[0] as StartRequest;
    return { ok: true, value: whole.value.lease === undefined ? { start } : { start, lease: whole.value.lease } };
  }
  const { lease, version, node, ...start } = value;
  const wrapped = { version: version ?? 1, node: node ?? 'job', ...(lease === undefined ? {} : { lease }), start: [start], stop: [] };
  const checked = checkApplyRequest(JSON.stringify(wrapped));
  if (!checked.ok) return { ok: false, error: checked.error.replace(/\/start\/0(?=[/:])/g, '').replace(/^: /, '') };
  const s = checked.value.start[0] as StartRequest;
  return { ok: true, value: checked.value.lease === undefined ? { start: s } : { start: s, lease: checked.value.lease } };
}

/** What Slurm gave the job: the GPUs to record (node-wide indices) and the engine's CUDA_VISIBLE_DEVICES. */
export interface JobGpus {
  gpus: number[];
  cudaVisibleDevices: string;
}

const INDEX_LIST = /^[0-9]{1,4}(,[0-9]{1,4})*$/;

function indices(name: string, value: string): Checked<number[]> {
  const v = value.trim();
  if (!INDEX_LIST.test(v)) return { ok: false, error: `${name}=${JSON.stringify(value)} is not a comma list of GPU indices` };
  const list = v.split(',').map(Number);
  if (new Set(list).size !== list.length) return { ok: false, error: `${name}=${JSON.stringify(value)} names a GPU twice` };
  return { ok: true, value: list };
}

/**
 * SLURM_JOB_GPUS first: Slurm's node-wide indices, what nvidia-smi and the
 * report number GPUs by. The engine keeps the CUDA_VISIBLE_DEVICES Slurm set
 * when it is a valid list: with ConstrainDevices the job sees only its GPUs,
 * renumbered from 0, and Slurm's value says so; otherwise it gets the job's indices.
 */
export function jobGpus(env: AgentEnv): Checked<JobGpus> {
  const slurm = env.SLURM_JOB_GPUS?.trim() ? env.SLURM_JOB_GPUS : undefined;
  const cuda = env.CUDA_VISIBLE_DEVICES?.trim() ? env.CUDA_VISIBLE_DEVICES : undefined;
  if (slurm === undefined && cuda === undefined) {
    return { ok: false, error: 'the job holds no GPUs: neither SLURM_JOB_GPUS nor CUDA_VISIBLE_DEVICES is set (submit it with --gres=gpu:N)' };
  }
  const recorded = slurm !== undefined ? indices('SLURM_JOB_GPUS', slurm) : indices('CUDA_VISIBLE_DEVICES', cuda as string);
  if (!recorded.ok) return recorded;
  if (cuda !== undefined && slurm !== undefined) {
    const visible = indices('CUDA_VISIBLE_DEVICES', cuda);
    if (visible.ok && visible.value.length === recorded.value.length)
      return { ok: true, value: { gpus: recorded.value, cudaVisibleDevices: visible.value.join(',') } };
  }
  return { ok: true, value: { gpus: recorded.value, cudaVisibleDevices: recorded.value.join(',') } };
}
