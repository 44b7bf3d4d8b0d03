// A real Slurm cluster on loopback, for the tests of llmgw's Slurm support
// (docs/slurm.md): Debian bookworm's Slurm 22.05 runs one controller and several
// `slurmd -N <name>` on 127.0.0.1, each with its own port, GPUs as a generic
// resource backed by fake character devices. Everything lives in one temporary
// directory; `stop()` ends every daemon and waits until each is gone (a zombie
// still holds its port). Nothing here is a mock: sinfo, squeue, sbatch, scancel
// and scontrol are Slurm's own, reached through SLURM_CONF.
//
// The pitfalls this avoids are Slurm's, not ours: daemons must run under the
// names slurmctld/slurmd/slurmstepd (started as *-wlm, slurmd drops every
// Gres=), count-only GPUs are dropped (File= must name character devices), and
// states lag a scheduler pass (callers poll with `waitFor`, never sleep).

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { pollUntil } from '../helpers/poll.js';

export interface SlurmNodeSpec {
  name: string;
  gpus: number;
}

export interface SlurmCluster {
  dir: string;
  /** The environment a Slurm client needs (SLURM_CONF), merged over process.env by `run`. */
  env: Record<string, string>;
  /** Runs a Slurm client command (sinfo, squeue, sbatch, …); throws with its stderr when it fails. */
  run(cmd: string, args: string[], input?: string): string;
  /** The nodes as `sinfo --json` reports them: name → state and flags, lowercase, joined by '+'. */
  nodeStates(): Map<string, string>;
  stop(): Promise<void>;
}

const SBIN = '/usr/sbin';

/** The pids of this machine's processes whose environment holds `entry` exactly (unreadable ones are skipped). */
function processesWithEnv(entry: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${name}/environ`, 'latin1').split('\0').includes(entry)) found.push(Number(name));
    } catch {
      // a process that ended, or one we may not read
    }
  }
  return found;
}

export function slurmAvailable(): boolean {
  return (
    ['slurmctld-wlm', 'slurmd-wlm', 'slurmstepd-wlm', 'munged'].every((b) => existsSync(join(SBIN, b))) &&
    ['sinfo', 'sbatch', 'scontrol'].every((b) => existsSync(join('/usr/bin', b)))
  );
}

async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from({ length: n }, async () => {
      const s = createServer();
      // The wildcard address, as slurmctld and slurmd bind: a port free on 127.0.0.1 may still be
      // taken on another loopback address (the simulated fleets of other tests hold thousands).
      await new Promise<void>((r) => s.listen(0, '0.0.0.0', () => r()));
      return s;
    }),
  );
  const ports = servers.map((s) => (s.address() as { port: number }).port);
  await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
  return ports;
}

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs` naming `what`. */
export function waitFor<T>(what: string, check: () => T | undefined, timeoutMs = 60_000): Promise<T> {
  return pollUntil(what, check, timeoutMs, 200);
}

function gone(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The state follows the command name in parentheses: Z (zombie) and X (dead) are gone.
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state === 'Z' || state === 'X';
  } catch {
    return true;
  }
}

export async function startSlurmCluster(nodes: readonly SlurmNodeSpec[]): Promise<SlurmCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'llmgw-slurm-'));
  chmodSync(dir, 0o755);
  const user = userInfo().username;
  for (const d of ['etc', 'state', 'spool', 'log', 'munge', 'bin', 'dev', 'jobs']) mkdirSync(join(dir, d), { recursive: true });
  for (const b of ['slurmctld', 'slurmd', 'slurmstepd']) symlinkSync(join(SBIN, `${b}-wlm`), join(dir, 'bin', b));

  // munge: its own key, socket and files, all in the temporary directory.
  const key = join(dir, 'munge', 'munge.key');
  writeFileSync(key, randomBytes(1024), { mode: 0o600 });
  const socket = join(dir, 'munge', 'munge.socket');
  const procs: ChildProcess[] = [];
  const daemon = (cmd: string, args: string[]): ChildProcess => {
    const p = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, SLURM_CONF: join(dir, 'etc', 'slurm.conf') } });
    p.stderr.resume();
    procs.push(p);
    return p;
  };
  daemon(join(SBIN, 'munged'), [
    '-F',
    '--force',
    '--key-file',
    key,
    '--socket',
    socket,
    '--pid-file',
    join(dir, 'munge', 'munged.pid'),
    '--seed-file',
    join(dir, 'munge', 'seed'),
    '--log-file',
    join(dir, 'log', 'munged.log'),
  ]);
  await waitFor('munged', () => (existsSync(socket) ? true : undefined), 10_000);

  const [ctldPort, slurmdPort, ...nodePorts] = await freePorts(2 + nodes.length);
  const gresLines: string[] = [];
  const nodeLines: string[] = [];
  nodes.forEach((n, i) => {
    const devs: string[] = [];
    for (let g = 0; g < n.gpus; g++) {
      const dev = join(dir, 'dev', `${n.name}-nvidia${g}`);
      // A character device is what gres.conf's File= must name; /dev/null is one.
      symlinkSync('/dev/null', dev);
      devs.push(dev);
    }
    if (n.gpus > 0) for (const d of devs) gresLines.push(`NodeName=${n.name} Name=gpu File=${d}`);
    const gres = n.gpus > 0 ? ` Gres=gpu:${n.gpus}` : '';
    nodeLines.push(`NodeName=${n.name} NodeAddr=127.0.0.1 NodeHostname=localhost Port=${nodePorts[i]} CPUs=16 RealMemory=64000${gres} State=UNKNOWN`);
  });
  const conf = [
    'ClusterName=llmgwtest',
    `SlurmctldHost=localhost(127.0.0.1)`,
    `SlurmctldPort=${ctldPort}`,
    `SlurmdPort=${slurmdPort}`,
    `SlurmUser=${user}`,
    `SlurmdUser=root`,
    `AuthType=auth/munge`,
    `AuthInfo=socket=${socket}`,
    `CredType=cred/munge`,
    `StateSaveLocation=${join(dir, 'state')}`,
    `SlurmdSpoolDir=${join(dir, 'spool')}/%n`,
    `SlurmctldPidFile=${join(dir, 'state', 'slurmctld.pid')}`,
    `SlurmdPidFile=${join(dir, 'spool')}/slurmd-%n.pid`,
    `SlurmctldLogFile=${join(dir, 'log', 'slurmctld.log')}`,
    `SlurmdLogFile=${join(dir, 'log')}/slurmd-%n.log`,
    'MailProg=/bin/true',
    'MpiDefault=none',
    'ProctrackType=proctrack/pgid',
    'TaskPlugin=task/none',
    'SwitchType=switch/none',
    'SelectType=select/cons_tres',
    'SelectTypeParameters=CR_Core',
    'SchedulerType=sched/backfill',
    'SchedulerParameters=batch_sched_delay=0',
    'SlurmdParameters=config_overrides',
    'ReturnToService=2',
    'GresTypes=gpu',
    'JobCompType=jobcomp/none',
    'AccountingStorageType=accounting_storage/none',
    'MinJobAge=300',
    ...nodeLines,
    `PartitionName=gpu Nodes=${nodes.map((n) => n.name).join(',')} Default=YES MaxTime=INFINITE State=UP`,
    '',
  ].join('\n');
  writeFileSync(join(dir, 'etc', 'slurm.conf'), conf);
  writeFileSync(join(dir, 'etc', 'gres.conf'), gresLines.join('\n') + '\n');

  const env = { SLURM_CONF: join(dir, 'etc', 'slurm.conf') };
  const run = (cmd: string, args: string[], input?: string): string => {
    const r = spawnSync(cmd, args, { env: { ...process.env, ...env }, input, encoding: 'utf8', cwd: join(dir, 'jobs'), timeout: 30_000 });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status ?? r.signal}): ${r.stderr.trim()}`);
    return r.stdout;
  };
  const nodeStates = (): Map<string, string> => {
    const out = JSON.parse(run('sinfo', ['--json'])) as { nodes?: { name: string; state: string; state_flags?: string[] }[] };
    const m = new Map<string, string>();
    for (const n of out.nodes ?? []) m.set(n.name, [n.state, ...(n.state_flags ?? [])].map((s) => s.toLowerCase()).join('+'));
    return m;
  };

  const stop = async (): Promise<void> => {
    // Jobs first (a job's processes outlive their slurmd otherwise), then the daemons, newest first.
    spawnSync('scancel', ['--full', '--user', user], { env: { ...process.env, ...env }, timeout: 10_000 });
    for (const p of [...procs].reverse()) if (p.pid !== undefined && p.exitCode === null) p.kill('SIGTERM');
    const allGone = (): true | undefined => (procs.every((p) => p.pid === undefined || gone(p.pid)) ? true : undefined);
    // A slurmd whose job step is still being torn down ignores SIGTERM for a while: it gets SIGKILL after 5 s.
    await waitFor('the Slurm daemons to exit', allGone, 5_000).catch(async () => {
      for (const p of procs) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
      await waitFor('the Slurm daemons to exit after SIGKILL', allGone, 10_000);
    });
    // Job steps are their own process groups: none may outlive the cluster. A
    // slurmstepd's command line is only `slurmstepd: [1.batch]`, so it is found
    // by the SLURM_CONF it inherited from this cluster's slurmd.
    spawnSync('pkill', ['-KILL', '-f', dir]);
    for (const pid of processesWithEnv(`SLURM_CONF=${join(dir, 'etc', 'slurm.conf')}`)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    daemon(join(dir, 'bin', 'slurmctld'), ['-D', '-i', '-f', env.SLURM_CONF]);
    await waitFor('slurmctld', () =>
      spawnSync('scontrol', ['ping'], { env: { ...process.env, ...env }, encoding: 'utf8' }).stdout.includes('UP') ? true : undefined,
    );
    for (const n of nodes) daemon(join(dir, 'bin', 'slurmd'), ['-D', '-N', n.name, '-f', env.SLURM_CONF, '-d', join(dir, 'bin', 'slurmstepd')]);
    await waitFor('every node idle', () => {
      const states = nodeStates();
      return nodes.every((n) => states.get(n.name) === 'idle') ? true : undefined;
    });
  } catch (err) {
    // Half a cluster is no cluster: nothing it started may outlive the failed start.
    await stop().catch(() => undefined);
    throw err;
  }

  return { dir, env, run, nodeStates, stop };
}
