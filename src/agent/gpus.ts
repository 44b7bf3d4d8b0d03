// Running nvidia-smi: the one process the report spawns.

import { execFile } from 'node:child_process';
import type { GpuReport } from '../types/snapshot.js';
import type { AgentEnv } from './env.js';
import { cleanText } from './quote.js';
import { COMPUTE_APPS_ARGS, GPU_FALLBACK_FIELDS, GPU_FIELDS, gpuQueryArgs, parseComputeApps, parseGpuCsv, type ComputeApp } from './nvidia-smi-csv.js';

/** A wedged GPU can hang nvidia-smi for minutes; the report must still come back. */
const NVIDIA_SMI_TIMEOUT_MS = 15_000;

interface RunResult {
  stdout: string;
  stderr: string;
  /** null: it ran and exited 0. */
  failure: null | { kind: 'missing' | 'timeout' | 'exit'; detail: string };
}

function runSmi(binary: string, args: string[], env: AgentEnv): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(
      binary,
      args,
      { env, timeout: NVIDIA_SMI_TIMEOUT_MS, killSignal: 'SIGKILL', maxBuffer: 4 * 1024 * 1024, encoding: 'utf8' },
      (err, stdout, stderr) => {
        if (!err) return resolve({ stdout, stderr, failure: null });
        const e = err as NodeJS.ErrnoException & { killed?: boolean; code?: string | number | null };
        if (e.code === 'ENOENT' || e.code === 'EACCES') {
          return resolve({ stdout, stderr, failure: { kind: 'missing', detail: e.code } });
        }
        if (e.killed) return resolve({ stdout, stderr, failure: { kind: 'timeout', detail: `no answer in ${NVIDIA_SMI_TIMEOUT_MS / 1000} s` } });
        const last = `${stderr}\n${stdout}`.trim().split('\n').pop()?.trim() ?? '';
        resolve({ stdout, stderr, failure: { kind: 'exit', detail: `exit ${String(e.code)}${last ? `: ${cleanText(last, 200)}` : ''}` } });
      },
    );
  });
}

export interface GpuReading {
  gpus: GpuReport[];
  warnings: string[];
  /** GPU index -> PCI bus id as nvidia-smi prints it (`00000000:3B:00.0`), for matching kernel-log Xids. */
  busIds: Map<number, string>;
  /** The compute processes on the GPUs; null when nvidia-smi could not list them (foreign unknown). */
  apps: ComputeApp[] | null;
}

async function readGpuRows(binary: string, env: AgentEnv): Promise<{ gpus: GpuReport[]; warnings: string[]; busIds: Map<number, string> }> {
  let fields: readonly string[] = GPU_FIELDS;
  let result = await runSmi(binary, gpuQueryArgs(fields), env);
  if (result.failure?.kind === 'missing') {
    return { gpus: [], warnings: [`no GPUs reported: ${binary} not found or not executable (${result.failure.detail})`], busIds: new Map() };
  }
  if (result.failure?.kind === 'exit' && /not a valid field/i.test(result.stdout + result.stderr)) {
    fields = GPU_FALLBACK_FIELDS;
    result = await runSmi(binary, gpuQueryArgs(fields), env);
  }
  const parsed = parseGpuCsv(result.stdout, fields);
  if (result.failure) {
    // A non-zero exit with some GPU rows still reports those rows: one GPU in error must not hide its neighbours.
    const what = parsed.gpus.length === 0 ? 'no GPUs reported' : 'GPU list may be partial';
    return { gpus: parsed.gpus, warnings: [`${what}: ${binary} failed (${result.failure.detail})`, ...parsed.warnings], busIds: parsed.busIds };
  }
  return parsed;
}

async function readComputeApps(binary: string, env: AgentEnv): Promise<{ apps: ComputeApp[] } | { error: string }> {
  const result = await runSmi(binary, COMPUTE_APPS_ARGS, env);
  if (result.failure) return { error: `${binary} --query-compute-apps failed (${result.failure.detail})` };
  return parseComputeApps(result.stdout);
}

/**
 * The node's GPUs, the processes on them, and what went wrong reading them.
 * Never throws: no nvidia-smi means no GPUs, said in a warning, because a node
 * without a driver is still a node whose storage and replicas are worth
 * reporting. Both queries run at once, each under NVIDIA_SMI_TIMEOUT_MS.
 */
export async function readGpus(env: AgentEnv): Promise<GpuReading> {
  const binary = env.LLMGW_NVIDIA_SMI || 'nvidia-smi';
  const [rows, apps] = await Promise.all([readGpuRows(binary, env), readComputeApps(binary, env)]);
  if ('apps' in apps) return { ...rows, apps: apps.apps };
  // No GPUs, no one to count foreign processes for: the GPU warning already says what is wrong.
  const warnings = rows.gpus.length === 0 ? rows.warnings : [...rows.warnings, `foreign GPU processes unknown: ${apps.error}`];
  return { gpus: rows.gpus, warnings, busIds: rows.busIds, apps: null };
}
