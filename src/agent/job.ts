// `agent job` (docs/slurm.md#what-the-agent-does-inside-the-job): the agent as
// the process of a Slurm batch job. The job script execs it with one start
// request on stdin; it checks the lease epoch (fence.ts), takes the GPUs Slurm
// gave the job, records the replica in the same store `agent apply` writes, so
// `agent report` lists it like any other, and then runs the engine as its
// child until the engine ends.
//
// Node has no exec(2), so "exec" is: spawn the argv (never a shell), in the
// job's own process group so Slurm's process tracking still holds it, forward
// SIGTERM and SIGINT to it (what `scancel --full --signal=TERM` sends), and end
// with the engine's exit code, or the code a shell gives a signal (128 + n)
// with `signal` set so the command can die of the same signal.

import { spawn } from 'node:child_process';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { constants } from 'node:os';
import { join } from 'node:path';
import type { AgentEnv } from './env.js';
import { logsDir } from './env.js';
import { admit } from './fence.js';
import { REPLICA_ENV } from './foreign.js';
import { checkJobRequest, jobGpus } from './job-request.js';
import { isAlive, processStartTime, stopProcessGroup } from './process.js';
import { readRecord, removeRecord, writeRecord, type ReplicaRecord } from './replica-store.js';
import { weightsStatus } from './storage.js';
import { errnoCode } from '../util/errno.js';

export interface JobOutcome {
  stdout: string;
  stderr: string;
  code: number;
  /** The signal the engine died of, when it did: the caller may die of it too. */
  signal?: NodeJS.Signals;
}

/** Where signals come from: the process, or a test's emitter. */
export interface SignalSource {
  on(signal: 'SIGTERM' | 'SIGINT', listener: (s: NodeJS.Signals) => void): unknown;
  off(signal: 'SIGTERM' | 'SIGINT', listener: (s: NodeJS.Signals) => void): unknown;
}

const FORWARDED = ['SIGTERM', 'SIGINT'] as const;

function refuse(message: string, code = 1): JobOutcome {
  return { stdout: '', stderr: `${message.replace(/\s*\n\s*/g, ' ')}\n`, code };
}

function signalCode(signal: NodeJS.Signals): number {
  return 128 + constants.signals[signal];
}

/** Clears what is left of an earlier run of this replica; refuses when that run is still alive. */
async function clearEarlier(env: AgentEnv, id: string): Promise<string | null> {
  const rec = await readRecord(env, id);
  if (rec === null) return null;
  if (await isAlive(rec.pid, rec.pidStartTime)) return `replica ${id} already runs on this node (pid ${rec.pid}); not starting a second copy`;
  // A requeued job, or a replica once started by `agent apply`: its orphaned workers go too.
  await stopProcessGroup(rec.pid, rec.pidStartTime, 2_000).catch(() => undefined);
  await removeRecord(env, id);
  return null;
}

export async function runJob(input: string, env: AgentEnv, signals: SignalSource = process, now: () => Date = () => new Date()): Promise<JobOutcome> {
  // Listening first: a TERM before the engine exists ends the job without starting it, never leaves an orphan.
  const got: { pending: NodeJS.Signals | null } = { pending: null };
  let forward: (s: NodeJS.Signals) => void = (s) => (got.pending ??= s);
  const listener = (s: NodeJS.Signals): void => forward(s);
  for (const s of FORWARDED) signals.on(s, listener);
  try {
    const req = checkJobRequest(input);
    if (!req.ok) return refuse(`llmgw agent job: bad start request: ${req.error}`);
    const { start } = req.value;
    const admitted = await admit(env, req.value.lease, now()).catch((err: unknown) => ({
      ok: false as const,
      error: `cannot record the lease epoch: ${err instanceof Error ? err.message : String(err)}`,
    }));
    // docs/protocol.md#fencing names this line's exact form.
    if (!admitted.ok) return refuse(admitted.error);
    const gpus = jobGpus(env);
    if (!gpus.ok) return refuse(`llmgw agent job: ${gpus.error}`);
    // Absent weights may be the engine's to fetch; a half-written directory is never servable.
    const weights = await weightsStatus(start.weightsPath);
    if (weights.status === 'incomplete') return refuse(`llmgw agent job: weights at ${start.weightsPath} are incomplete: ${weights.why}`);
    const earlier = await clearEarlier(env, start.replica);
    if (earlier !== null) return refuse(`llmgw agent job: ${earlier}`);
    const early = got.pending;
    if (early !== null) return { stdout: '', stderr: `llmgw agent job: ${early} before the engine started\n`, code: signalCode(early), signal: early };

    await mkdir(logsDir(env), { recursive: true });
    const log = join(logsDir(env), `${start.replica}.log`);
    await rename(log, `${log}.1`).catch(() => undefined);
    const file = await open(log, 'w');
    const engineEnv: Record<string, string> = { ...start.env, CUDA_VISIBLE_DEVICES: gpus.value.cudaVisibleDevices };
    const [command, ...args] = start.command as [string, ...string[]];
    const child = spawn(command, args, { env: { ...env, ...engineEnv, [REPLICA_ENV]: start.replica }, stdio: ['ignore', file.fd, file.fd] });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    const spawned = await new Promise<unknown>((resolve) => {
      child.once('spawn', () => resolve(null));
      child.once('error', resolve);
    });
    await file.close();
    if (spawned !== null) {
      await rm(log, { force: true });
      const code = errnoCode(spawned);
      const why =
        code === 'ENOENT' ? 'command not found' : code === 'EACCES' ? 'permission denied' : spawned instanceof Error ? spawned.message : 'spawn failed';
      return refuse(`llmgw agent job: cannot start ${command}: ${why}`);
    }
    forward = (s) => child.kill(s);
    const pid = child.pid as number;
    const slurmJob = env.SLURM_JOB_ID?.trim();
    const record: ReplicaRecord = {
      ...start,
      gpus: gpus.value.gpus,
      env: engineEnv,
      supervisor: 'slurm',
      pid,
      pidStartTime: await processStartTime(pid),
      startedAt: now().toISOString(),
      log,
      ...(slurmJob && /^[0-9]{1,12}$/.test(slurmJob) ? { slurmJob } : {}),
    };
    try {
      await writeRecord(env, record);
    } catch (err) {
      // An engine nobody recorded could never be reported: it does not run.
      child.kill('SIGKILL');
      await exited;
      return refuse(`llmgw agent job: cannot record ${start.replica}: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (got.pending !== null) child.kill(got.pending);
    const end = await exited;
    if (end.signal !== null) return { stdout: '', stderr: '', code: signalCode(end.signal), signal: end.signal };
    return { stdout: '', stderr: '', code: end.code ?? 1 };
  } finally {
    for (const s of FORWARDED) signals.off(s, listener);
  }
}
