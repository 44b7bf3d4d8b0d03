// Stopping a replica `agent job` runs (docs/slurm.md#what-the-agent-does-inside-the-job).
// Its engine is not the leader of a process group of its own, as `agent apply`'s
// detached engines are: it is the child of the job's agent, in the job's group,
// which Slurm's process tracking holds. Signalling "its group" would reach
// nothing (no group has its pid) and the record would be dropped while the
// engine still holds its GPUs. So the stop signals the engine itself: SIGTERM,
// up to the grace, then SIGKILL. The job's agent then ends with it, and so
// does the job; the reconciler's scancel ends whatever else the job left.

import { setTimeout as sleep } from 'node:timers/promises';
import { errnoCode } from '../util/errno.js';
import { isAlive } from './process.js';

function signal(pid: number, s: NodeJS.Signals): void {
  try {
    process.kill(pid, s);
  } catch (err) {
    // Gone meanwhile is what a stop wants; anything else (EPERM) the caller must hear.
    if (errnoCode(err) !== 'ESRCH') throw err;
  }
}

async function goneWithin(pid: number, startTime: string | null, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (!(await isAlive(pid, startTime))) return true;
    if (Date.now() >= deadline) return false;
    await sleep(100);
  }
}

/** Stops a Slurm job's engine by its pid; throws when it outlives SIGKILL, so its record is kept. */
export async function stopJobEngine(pid: number, startTime: string | null, graceMs: number): Promise<'stopped' | 'not-running'> {
  if (!(await isAlive(pid, startTime))) return 'not-running';
  signal(pid, 'SIGTERM');
  if (await goneWithin(pid, startTime, graceMs)) return 'stopped';
  signal(pid, 'SIGKILL');
  if (await goneWithin(pid, startTime, 5_000)) return 'stopped';
  throw new Error(`process ${pid} is still there 5 s after SIGKILL`);
}
