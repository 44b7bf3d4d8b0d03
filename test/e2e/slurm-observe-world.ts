// The Slurm end-to-end tests' world (docs/slurm.md): the simulated fleet of
// lifecycle-world.ts (8 nodes of 8 GPUs, real SSH, the real agent and router, a
// real git remote) beside a real Slurm 22.05 cluster on loopback
// (test/slurm/cluster.ts) whose nodes have the fleet's names. cluster.yaml's
// `slurm.host` is the simulated host rt-1, reached with the fleet's own ssh
// settings: the three commands llmgw reads Slurm with run there against the
// real cluster, as sshd would run them; everything else rt-1 is asked is the
// router's, as before. Ticks use the real clock, so a reservation Slurm made
// "now" is active at the fleet's now.

import { SLURM_COMMANDS } from '../../src/gather/slurm.js';
import type { ExecHandler } from '../../src/sim/fleet.js';
import { startSlurmCluster, waitFor, type SlurmCluster } from '../slurm/cluster.js';
import { runOnSlurm } from '../slurm/slurm-ssh.js';
import { startLifecycleWorld, type LifecycleWorld } from './lifecycle-world.js';

export const SLURM_NODES = ['gpu-a01', 'gpu-a02', 'gpu-a03', 'gpu-a04', 'gpu-b01', 'gpu-b02', 'gpu-b03', 'gpu-b04'].map((name) => ({ name, gpus: 8 }));

/** The simulated host that answers as `slurm.host`. */
const SLURM_HOST = 'rt-1';
const READS = new Set<string>(Object.values(SLURM_COMMANDS));

export interface SlurmWorld {
  w: LifecycleWorld;
  cluster: SlurmCluster;
  /** squeue --json's jobs: id -> [state, reason]. */
  jobs(): Map<string, [string, string]>;
  /** sbatch --parsable, output to /dev/null; the job's id. */
  submit(args: string[]): string;
  /** Polls until Slurm reports the job in one of `states` (uppercase, as squeue says them). */
  waitJob(id: string, states: string[]): Promise<void>;
  close(): Promise<void>;
}

export interface SlurmWorldOptions {
  /** cluster.yaml `slurm:` beyond host and port (partition gpu unless given). */
  slurm?: Record<string, unknown>;
  cluster?: (doc: Record<string, unknown>) => void;
  /** Called with the node and stdin of every `agent apply` before the agent runs it. */
  onApply?: (node: string, stdin: string) => Promise<void>;
}

export async function startSlurmWorld(modelsYaml: string, opts: SlurmWorldOptions = {}): Promise<SlurmWorld> {
  const cluster = await startSlurmCluster(SLURM_NODES);
  const wrap = (inner: ExecHandler): ExecHandler => {
    return async (ctx) => {
      if (ctx.host === SLURM_HOST && READS.has(ctx.command)) return runOnSlurm(cluster, ctx.command, ctx.stdin);
      if (opts.onApply && ctx.command.endsWith(' apply')) await opts.onApply(ctx.host, ctx.stdin);
      return inner(ctx);
    };
  };
  let w: LifecycleWorld;
  try {
    w = await startLifecycleWorld(modelsYaml, {
      wrapHandler: wrap,
      cluster: (doc) => {
        const routers = doc.routers as { name: string; host: string; port: number }[];
        const rt = routers.find((r) => r.name === SLURM_HOST);
        if (!rt) throw new Error(`the simulated fleet has no ${SLURM_HOST}`);
        doc.slurm = { host: rt.host, port: rt.port, partition: 'gpu', ...opts.slurm };
        opts.cluster?.(doc);
      },
    });
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  // The real clock: Slurm's reservations and the fleet's now are then one time line.
  w.tick = () => w.e.tick();
  const jobs = (): Map<string, [string, string]> => {
    const doc = JSON.parse(cluster.run('squeue', ['--json'])) as { jobs: { job_id: number; job_state: string; state_reason: string }[] };
    return new Map(doc.jobs.map((j) => [String(j.job_id), [j.job_state, j.state_reason]]));
  };
  return {
    w,
    cluster,
    jobs,
    submit: (args) => cluster.run('sbatch', ['--parsable', '-o', '/dev/null', ...args, '--wrap', 'exec sleep 600']).trim(),
    waitJob: async (id, states) => {
      await waitFor(`Slurm job ${id} ${states.join(' or ')}`, () => (states.includes(jobs().get(id)?.[0] ?? '') ? true : undefined), 120_000);
    },
    close: async () => {
      try {
        await w.close();
      } finally {
        await cluster.stop();
      }
    },
  };
}
