// Jobs mode's calls on `slurm.host` (docs/slurm.md#jobs-mode-mode-jobs), over
// the fleet's own SSH transport: `sbatch --parsable` with the job script on
// its stdin (the command line is fixed, so no repo value ever reaches a
// shell), and the two scancels of a stop. The holder re-checks its lease (the
// guard: its deadline, a fencing refusal) before every one of them; a call the
// guard stops is not made and says so (null), for the next tick.

import { SshError } from '../errors.js';
import type { Config } from '../types/config.js';
import type { PlanJob } from '../types/plan.js';
import type { HostTarget, Transport } from '../types/transport.js';
import { SBATCH_COMMAND, parseSbatchId, scancelArgv } from '../slurm/job-script.js';
import { submissionScript } from '../slurm/submit.js';
import type { NodeStart } from './agent-requests.js';
import type { ApplyGuard } from './guard.js';

export type SlurmCall<T> = { ok: true; value: T } | { ok: false; error: string; exited: boolean };

function slurmTarget(config: Config): HostTarget {
  const slurm = config.cluster.slurm;
  if (slurm === undefined) throw new Error('jobs mode without slurm:');
  return { name: `slurm host ${slurm.host}`, host: slurm.host, port: slurm.port };
}

function failed(err: unknown): { ok: false; error: string; exited: boolean } {
  const error = (err instanceof Error ? err.message : String(err)).split('\n', 1)[0] ?? '';
  // Slurm answered and said no (a job already gone): not the same as not reaching it.
  return { ok: false, error, exited: err instanceof SshError && err.kind === 'command-failed' };
}

/** Submits one rank; its Slurm job id. null: the guard stopped the apply first. */
export async function submitRank(config: Config, transport: Transport, guard: ApplyGuard, start: NodeStart): Promise<SlurmCall<string> | null> {
  if (guard.stop() !== null) return null;
  try {
    const script = submissionScript(config, start, guard.lease);
    const out = await transport.run(slurmTarget(config), SBATCH_COMMAND, script);
    const id = parseSbatchId(out);
    if (id === null) return { ok: false, error: `sbatch printed no job id: ${JSON.stringify(out.trim().slice(0, 200))}`, exited: false };
    return { ok: true, value: id };
  } catch (err) {
    return failed(err);
  }
}

/** One scancel of a stop: `term` (`--full --signal=TERM`) or `kill` (the plain cancel). null: the guard stopped the apply first. */
export async function cancelJob(config: Config, transport: Transport, guard: ApplyGuard, id: string, which: 'term' | 'kill'): Promise<SlurmCall<null> | null> {
  if (guard.stop() !== null) return null;
  try {
    await transport.run(slurmTarget(config), scancelArgv(id)[which].join(' '), '');
    return { ok: true, value: null };
  } catch (err) {
    return failed(err);
  }
}

/** Each job's scancel, one after another (each re-checks the lease), by job id. */
export async function cancelAll(
  config: Config,
  transport: Transport,
  guard: ApplyGuard,
  jobs: readonly PlanJob[],
  which: 'term' | 'kill',
): Promise<Map<string, SlurmCall<null> | null>> {
  const out = new Map<string, SlurmCall<null> | null>();
  for (const j of jobs) if (j.id !== undefined) out.set(j.id, await cancelJob(config, transport, guard, j.id, which));
  return out;
}
