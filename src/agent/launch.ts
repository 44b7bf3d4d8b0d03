// Starting a replica's engine so that it outlives the SSH session that asked for it.
//
// With systemd (and root), `systemd-run` makes it a transient service: logind's
// KillUserProcesses cannot reap it at logout, and the unit's cgroup holds every
// worker it forks. Without systemd, a plain detached process in its own session
// and process group, with stdio on a log file, survives the session's SIGHUP.
// Either way the command is argv, never a shell line: nothing from the repo is
// ever interpreted by a shell on the node, and it runs in the agent's working
// directory (over SSH, the login directory), so relative paths in an engine
// command mean what they mean to the operator who types `llmgw agent`.

import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { StartRequest } from '../types/snapshot.js';
import { logsDir, type AgentEnv } from './env.js';
import { REPLICA_ENV } from './foreign.js';
import { processStartTime } from './process.js';
import type { Supervisor } from './replica-store.js';

export interface Launched {
  supervisor: Supervisor;
  unit?: string;
  pid: number;
  pidStartTime: string | null;
  log: string;
}

/**
 * `LLMGW_AGENT_SUPERVISOR=process|systemd` forces one; otherwise systemd when
 * the node booted with it and the agent runs as root (a non-root systemd-run
 * would stop at a polkit prompt nobody answers).
 */
export function chooseSupervisor(env: AgentEnv): Supervisor {
  const forced = env.LLMGW_AGENT_SUPERVISOR;
  if (forced === 'process' || forced === 'systemd') return forced;
  return existsSync('/run/systemd/system') && process.getuid?.() === 0 ? 'systemd' : 'process';
}

export async function launch(start: StartRequest, env: AgentEnv): Promise<Launched> {
  await mkdir(logsDir(env), { recursive: true });
  const log = join(logsDir(env), `${start.replica}.log`);
  // Keep the previous run's log: when a replica is restarted after a crash, that log says why.
  await rename(log, `${log}.1`).catch(() => undefined);
  // LLMGW_REPLICA_ID marks every process of the replica, so its GPU processes are told from foreign ones (foreign.ts).
  const childEnv: AgentEnv = { ...env, ...start.env, [REPLICA_ENV]: start.replica };
  return chooseSupervisor(env) === 'systemd' ? launchSystemd(start, childEnv, log) : launchDetached(start, childEnv, log);
}

async function launchDetached(start: StartRequest, env: AgentEnv, log: string): Promise<Launched> {
  const file = await open(log, 'w');
  try {
    const [command, ...args] = start.command as [string, ...string[]];
    const child = spawn(command, args, { env, detached: true, stdio: ['ignore', file.fd, file.fd] });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    }).catch(async (err: unknown) => {
      await rm(log, { force: true });
      throw err;
    });
    child.unref();
    const pid = child.pid as number;
    return { supervisor: 'process', pid, pidStartTime: await processStartTime(pid), log };
  } finally {
    await file.close();
  }
}

function run(cmd: string, args: string[], env: AgentEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { env, timeout: 30_000, encoding: 'utf8' }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${cmd} failed: ${(stderr || err.message).trim().split('\n').pop() ?? ''}`));
      else resolve(stdout);
    });
  });
}

async function launchSystemd(start: StartRequest, env: AgentEnv, log: string): Promise<Launched> {
  const unit = `llmgw-${start.replica}`;
  const setenv = Object.entries(env)
    .filter((e): e is [string, string] => e[1] !== undefined && /^[A-Za-z_][A-Za-z0-9_]*$/.test(e[0]))
    .map(([k, v]) => `--setenv=${k}=${v}`);
  // Type=exec: systemd-run returns only once the command was executed, so "command not found" fails this start.
  await run(
    'systemd-run',
    [
      `--unit=${unit}`,
      '--collect',
      '--quiet',
      '--property=Type=exec',
      '--same-dir',
      `--property=StandardOutput=append:${log}`,
      `--property=StandardError=append:${log}`,
      ...setenv,
      '--',
      ...start.command,
    ],
    env,
  );
  const pid = Number((await run('systemctl', ['show', '--property=MainPID', '--value', unit], env)).trim());
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`${unit} started but has no main process`);
  return { supervisor: 'systemd', unit, pid, pidStartTime: await processStartTime(pid), log };
}
