// Is a recorded replica's process still the one we started, and stopping it.
//
// A bare pid is not an identity: once a process exits, the kernel may hand its
// pid to anything else, and an exited child that nobody reaped yet still
// answers kill(pid, 0). So on Linux the agent records the process's start time
// from /proc/<pid>/stat and treats a zombie, or a pid with another start time,
// as gone. Elsewhere (a developer's laptop) it falls back to kill(pid, 0).

import { readFile, readdir } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { errnoCode } from '../util/errno.js';

interface ProcStat {
  state: string;
  startTime: string;
}

async function procStat(pid: number): Promise<ProcStat | null | 'no-proc'> {
  try {
    const text = await readFile(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may itself hold spaces or ')'.
    const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: rest[0] ?? '?', startTime: rest[19] ?? '' };
  } catch (err) {
    if (errnoCode(err) === 'ENOENT') {
      return (await hasProcFs()) ? null : 'no-proc';
    }
    throw err;
  }
}

let procFs: Promise<boolean> | undefined;
function hasProcFs(): Promise<boolean> {
  procFs ??= readFile('/proc/self/stat').then(
    () => true,
    () => false,
  );
  return procFs;
}

/** The process's start time (clock ticks since boot) to record beside its pid; null where /proc is missing. */
export async function processStartTime(pid: number): Promise<string | null> {
  const s = await procStat(pid).catch(() => null);
  return s !== null && s !== 'no-proc' ? s.startTime : null;
}

function signalAnswers(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return errnoCode(err) === 'EPERM';
  }
}

/** True while the process we started (same pid, same start time) runs and is not a zombie. */
export async function isAlive(pid: number, startTime: string | null): Promise<boolean> {
  const s = await procStat(pid).catch(() => null);
  if (s === 'no-proc') return signalAnswers(pid);
  if (s === null) return false;
  if (s.state === 'Z' || s.state === 'X' || s.state === 'x') return false;
  return startTime === null || s.startTime === startTime;
}

type Signalled = 'sent' | 'gone' | 'denied';

function signalGroup(pgid: number, signal: NodeJS.Signals | 0): Signalled {
  try {
    process.kill(-pgid, signal);
    return 'sent';
  } catch (err) {
    return errnoCode(err) === 'EPERM' ? 'denied' : 'gone';
  }
}

/**
 * SIGTERM the replica's process group (an engine's workers are its children),
 * wait up to graceMs for the group to go, then SIGKILL it. The group is only
 * signalled when its leader is ours or already gone: Linux does not reuse a
 * pid while a group of that id exists, so orphaned workers are still reached,
 * but a pid handed to an unrelated process never is. Throws when the group
 * cannot be signalled or outlives SIGKILL, so its record is not dropped while
 * it still holds GPUs.
 */
export async function stopProcessGroup(pid: number, startTime: string | null, graceMs: number): Promise<'stopped' | 'not-running'> {
  const s = await procStat(pid).catch(() => null);
  if (s !== null && s !== 'no-proc' && startTime !== null && s.startTime !== startTime) return 'not-running';
  const term = signalGroup(pid, 'SIGTERM');
  if (term === 'gone') return 'not-running';
  if (term === 'denied') throw new Error(`not permitted to signal process group ${pid} (started by another user?)`);
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    await sleep(100);
    if (!(await groupLives(pid))) return 'stopped';
  }
  signalGroup(pid, 'SIGKILL');
  for (let i = 0; i < 50; i++) {
    if (!(await groupLives(pid))) return 'stopped';
    await sleep(100);
  }
  throw new Error(`process group ${pid} is still there 5 s after SIGKILL`);
}

/** A group whose only member is its zombie leader is gone for our purposes. */
async function groupLives(pgid: number): Promise<boolean> {
  if (signalGroup(pgid, 0) === 'gone') return false;
  const s = await procStat(pgid).catch(() => null);
  if (s === null || s === 'no-proc' || s.state !== 'Z') return true;
  // Leader is a zombie: the group lives only if some other member does; SIGKILL is harmless to zombies.
  return hasOtherMembers(pgid);
}

async function hasOtherMembers(pgid: number): Promise<boolean> {
  const pids = (await readdir('/proc').catch(() => [] as string[])).filter((n) => /^\d+$/.test(n) && Number(n) !== pgid);
  for (const p of pids) {
    const text = await readFile(`/proc/${p}/stat`, 'utf8').catch(() => '');
    const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
    if (rest[2] === String(pgid) && rest[0] !== 'Z') return true;
  }
  return false;
}
