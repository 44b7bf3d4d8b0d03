// The Slurm host reached over SSH, for the tests of llmgw's Slurm support: a
// simulated SSH host (src/sim, a real ssh2 server on loopback) that runs each
// command it is given with /bin/sh, as sshd would, against the harness's real
// Slurm (SLURM_CONF set). Other hosts of the fleet answer `agent report` with a
// canned report. The transport is llmgw's own SSH transport.

import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createSshTransport } from '../../src/gather/ssh-transport.js';
import { startSimFleet, type ExecResult, type SimFleet } from '../../src/sim/fleet.js';
import type { SshConfig } from '../../src/types/config.js';
import type { HostTarget, Transport } from '../../src/types/transport.js';
import { cannedHandler, simSshConfig } from '../gather/sim-helpers.js';
import type { SlurmCluster } from './cluster.js';

export interface SlurmSsh {
  fleet: SimFleet;
  ssh: SshConfig;
  transport: Transport;
  /** The Slurm host: `slurm.host`/`slurm.port` of the config. */
  target: HostTarget;
  /** Every command line the Slurm host was asked to run, in order. */
  commands: string[];
  close(): Promise<void>;
}

/** A command line run as sshd would, with /bin/sh, against the cluster (its SLURM_CONF), in its jobs directory. */
export function runOnSlurm(cluster: SlurmCluster, command: string, stdin: string): Promise<ExecResult> {
  return sh(command, stdin, cluster.env, join(cluster.dir, 'jobs'));
}

function sh(command: string, stdin: string, env: Record<string, string>, cwd: string): Promise<ExecResult> {
  return new Promise((resolve) => {
    const p = spawn('/bin/sh', ['-c', command], { env: { ...process.env, ...env }, cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    p.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    p.on('error', (e) => resolve({ stdout, stderr: stderr + e.message, code: 127 }));
    p.on('close', (code) => resolve({ stdout, stderr, code: code ?? 1 }));
    // A command that reads no stdin (sinfo, squeue) may exit before the write lands:
    // the EPIPE that follows is sshd's behaviour too (the input is dropped), not a failure.
    p.stdin.on('error', () => {});
    p.stdin.end(stdin);
  });
}

export async function startSlurmSsh(cluster: SlurmCluster, keysDir: string, nodeHosts: string[] = []): Promise<SlurmSsh> {
  const commands: string[] = [];
  const fleet = await startSimFleet({
    dir: keysDir,
    hosts: [{ name: 'slurm-ctl' }, ...nodeHosts.map((name) => ({ name }))],
    handler: async (ctx) => {
      if (ctx.host !== 'slurm-ctl') return cannedHandler(ctx);
      commands.push(ctx.command);
      return runOnSlurm(cluster, ctx.command, ctx.stdin);
    },
  });
  const ssh = simSshConfig(fleet, { connectTimeoutMs: 10_000, commandTimeoutMs: 30_000 });
  const transport = createSshTransport(ssh);
  const ctl = fleet.hosts[0]!;
  return {
    fleet,
    ssh,
    transport,
    target: { name: 'slurm-ctl', host: ctl.host, port: ctl.port },
    commands,
    close: async () => {
      await transport.close();
      await fleet.close();
    },
  };
}
