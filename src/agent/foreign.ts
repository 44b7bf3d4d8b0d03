// Which compute processes on a GPU this agent did not start (docs/protocol.md#foreign-gpu-processes):
// a training job, a notebook, someone's test on a node shared with Slurm or
// people. A GPU with such a process looks free to llmgw otherwise.
//
// A process is ours when any of these holds (each covers a way an engine's
// workers can look unrelated to the process we started):
//   1. its process group is a recorded replica's (every replica is started as
//      a group leader: detached spawn or a systemd service), the leader being
//      gone or the very process we started (pid + start time);
//   2. an ancestor is a recorded replica's process (pid + start time): a worker
//      that made its own group;
//   3. its cgroup is a recorded replica's systemd unit: anything the unit forked;
//   4. its environment carries LLMGW_REPLICA_ID naming a recorded replica (set at
//      launch, inherited by every descendant, even one reparented to init).
// A pid that cannot be read (gone, or in another pid namespace) is foreign: the
// agent cannot show it is ours, and calling a used GPU free is the worse mistake.

import { readFile } from 'node:fs/promises';
import type { GpuReport } from '../types/snapshot.js';
import type { ComputeApp } from './nvidia-smi-csv.js';
import type { ReplicaRecord } from './replica-store.js';

/** Set in every replica's environment at launch. */
export const REPLICA_ENV = 'LLMGW_REPLICA_ID';

/** Deeper than any engine's process tree; a cycle or a very deep chain stops here. */
const MAX_ANCESTRY = 64;

interface ProcInfo {
  ppid: number;
  pgrp: number;
  startTime: string;
}

async function procInfo(pid: number): Promise<ProcInfo | null> {
  const text = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
  if (text === null) return null;
  // The command name (field 2) is in parentheses and may itself hold spaces or ')'.
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { ppid: Number(rest[1]), pgrp: Number(rest[2]), startTime: rest[19] ?? '' };
}

interface Known {
  byPid: Map<number, ReplicaRecord>;
  units: string[];
  ids: Set<string>;
}

/** The recorded replica whose process this pid still is (same start time), if any. */
async function recordedAt(pid: number, known: Known, info?: ProcInfo | null): Promise<ReplicaRecord | undefined> {
  const rec = known.byPid.get(pid);
  if (rec === undefined) return undefined;
  const now = info === undefined ? await procInfo(pid) : info;
  return now !== null && (rec.pidStartTime === null || now.startTime === rec.pidStartTime) ? rec : undefined;
}

async function inOurGroup(info: ProcInfo, known: Known): Promise<boolean> {
  if (!known.byPid.has(info.pgrp)) return false;
  const leader = await procInfo(info.pgrp);
  // Leader gone: Linux reuses no pid while a group of that id lives, so the group is still the one we started.
  return leader === null || (await recordedAt(info.pgrp, known, leader)) !== undefined;
}

async function hasOurAncestor(info: ProcInfo, known: Known): Promise<boolean> {
  let ppid = info.ppid;
  for (let i = 0; i < MAX_ANCESTRY && ppid > 1; i++) {
    const parent = await procInfo(ppid);
    if (parent === null) return false;
    if ((await recordedAt(ppid, known, parent)) !== undefined) return true;
    ppid = parent.ppid;
  }
  return false;
}

/** Whether a /proc/<pid>/cgroup text places the process in one of the units (v1 or v2 lines: `N:ctrl:/path`). */
export function cgroupInUnits(cgroup: string, units: string[]): boolean {
  const paths = cgroup.split('\n').map((l) => l.slice(l.indexOf(':', l.indexOf(':') + 1) + 1));
  return paths.some((p) => p.split('/').some((seg) => units.some((u) => seg === `${u}.service`)));
}

async function inOurUnit(pid: number, known: Known): Promise<boolean> {
  if (known.units.length === 0) return false;
  return cgroupInUnits(await readFile(`/proc/${pid}/cgroup`, 'utf8').catch(() => ''), known.units);
}

async function carriesOurId(pid: number, known: Known): Promise<boolean> {
  // Readable for our own user's processes (or all, as root); EACCES just means "not shown ours this way".
  const environ = await readFile(`/proc/${pid}/environ`, 'utf8').catch(() => '');
  const entry = environ.split('\0').find((e) => e.startsWith(`${REPLICA_ENV}=`));
  return entry !== undefined && known.ids.has(entry.slice(REPLICA_ENV.length + 1));
}

async function isOurs(pid: number, known: Known): Promise<boolean> {
  const info = await procInfo(pid);
  if (info === null) return false;
  if ((await recordedAt(pid, known, info)) !== undefined) return true;
  return (await inOurGroup(info, known)) || (await hasOurAncestor(info, known)) || (await inOurUnit(pid, known)) || (await carriesOurId(pid, known));
}

/** The pids among `pids` that belong to a replica of `records`. */
export async function ourPids(pids: number[], records: ReplicaRecord[]): Promise<Set<number>> {
  const known: Known = {
    byPid: new Map(records.map((r) => [r.pid, r])),
    units: records.flatMap((r) => (r.unit === undefined ? [] : [r.unit])),
    ids: new Set(records.map((r) => r.replica)),
  };
  const distinct = [...new Set(pids)];
  const verdicts = await Promise.all(distinct.map(async (pid) => [pid, await isOurs(pid, known).catch(() => false)] as const));
  return new Set(verdicts.filter(([, ours]) => ours).map(([pid]) => pid));
}

/**
 * Each GPU with its count of foreign processes, matched by uuid. A GPU without
 * a uuid cannot be matched: its count is unknown and left out.
 */
export function withForeign(gpus: GpuReport[], apps: ComputeApp[], ours: Set<number>): GpuReport[] {
  const foreign = new Map<string, Set<number>>();
  for (const app of apps) {
    if (ours.has(app.pid)) continue;
    const set = foreign.get(app.gpuUuid) ?? new Set<number>();
    set.add(app.pid);
    foreign.set(app.gpuUuid, set);
  }
  return gpus.map((g) => (g.uuid === undefined ? g : { ...g, foreign: foreign.get(g.uuid)?.size ?? 0 }));
}
