// The agent's own records, one small JSON file per replica, in its state directory:
//   replicas/<id>.json  what apply started (written by apply only)
//   health/<id>.json    what report has seen of it (written by report only): health
//                       and answer-check times, the last check; each report is a
//                       new process, so this is its only memory
//   load/<id>.json      its engine's last metrics sample and when progress last moved
//                       (written by report only)
// Both are written to a temporary file and renamed: a crash mid-write leaves the old file.
// Keeping the two apart means a report racing a stop can at worst leave a
// stray health file, never resurrect a stopped replica's record.

import { readFile, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { CheckResult, StartRequest } from '../types/snapshot.js';
import { writeFileAtomic } from '../util/fs.js';
import { healthDir, loadDir, replicasDir, type AgentEnv } from './env.js';
import type { LoadRecord } from './engine-load.js';

/** `slurm`: the engine is the child of `agent job`, the process of a Slurm batch job (job.ts). */
export type Supervisor = 'process' | 'systemd' | 'slurm';

export interface ReplicaRecord extends Omit<StartRequest, 'env'> {
  env: Record<string, string>;
  supervisor: Supervisor;
  /** The systemd unit, when supervisor is systemd. */
  unit?: string;
  pid: number;
  /** /proc start time of pid, so a reused pid is not mistaken for ours; null where unknown. */
  pidStartTime: string | null;
  startedAt: string;
  log: string;
  /** The Slurm job it runs in (`SLURM_JOB_ID`), when `agent job` started it. */
  slurmJob?: string;
}

export interface HealthRecord {
  /** The process this was seen of: a restarted replica starts with a clean slate. */
  pid: number;
  pidStartTime: string | null;
  /** Last time the health check answered 200. */
  healthyAt?: string;
  /** First time it answered 200: the answer check's timeout counts from here. */
  firstHealthyAt?: string;
  /** First time its answer check passed: from then on it is running, and a failing check only says so. */
  checkPassedAt?: string;
  /** The last answer check, reported as is until the next one (re-checks are spaced out). */
  check?: CheckResult;
  /** Once failed, a replica stays failed until stopped, so the plan that stops it sees a stable state. */
  failed?: { at: string; reason: string };
}

/** Replica ids name files here, so they must be plain names (docs/commands.md: `<model>-<n>`). */
export const REPLICA_ID = /^[a-z0-9][a-z0-9._-]*$/;

function recordPath(env: AgentEnv, id: string): string {
  return join(replicasDir(env), `${id}.json`);
}

function healthPath(env: AgentEnv, id: string): string {
  return join(healthDir(env), `${id}.json`);
}

async function readJson<T>(path: string): Promise<T | null> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as T;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

export async function readRecord(env: AgentEnv, id: string): Promise<ReplicaRecord | null> {
  return readJson<ReplicaRecord>(recordPath(env, id));
}

/** Every record, sorted by id; an unreadable one is a warning, not a failed report. */
export async function listRecords(env: AgentEnv): Promise<{ records: ReplicaRecord[]; warnings: string[] }> {
  let names: string[];
  try {
    names = await readdir(replicasDir(env));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { records: [], warnings: [] };
    throw err;
  }
  const ids = names
    .filter((n) => n.endsWith('.json'))
    .map((n) => n.slice(0, -5))
    .filter((id) => REPLICA_ID.test(id))
    .sort();
  const warnings: string[] = [];
  const records: ReplicaRecord[] = [];
  for (const id of ids) {
    const rec = await readRecord(env, id).catch(() => null);
    if (rec && rec.replica === id && Number.isInteger(rec.pid)) records.push(rec);
    else warnings.push(`unreadable replica record ${recordPath(env, id)}`);
  }
  return { records, warnings };
}

export async function writeRecord(env: AgentEnv, rec: ReplicaRecord): Promise<void> {
  await writeFileAtomic(recordPath(env, rec.replica), JSON.stringify(rec, null, 2) + '\n');
}

function loadPath(env: AgentEnv, id: string): string {
  return join(loadDir(env), `${id}.json`);
}

/** Removes every file of a replica. */
export async function removeRecord(env: AgentEnv, id: string): Promise<void> {
  await rm(recordPath(env, id), { force: true });
  await rm(healthPath(env, id), { force: true });
  await rm(loadPath(env, id), { force: true });
}

/** The last sample of this replica's metrics; null when none (or unreadable: the stall clock then starts afresh). */
export async function readLoad(env: AgentEnv, id: string): Promise<LoadRecord | null> {
  return readJson<LoadRecord>(loadPath(env, id)).catch(() => null);
}

export async function writeLoad(env: AgentEnv, id: string, rec: LoadRecord): Promise<void> {
  await writeFileAtomic(loadPath(env, id), JSON.stringify(rec) + '\n');
}

/** What report saw of this very process, or an empty record when it saw nothing (or saw an earlier process). */
export async function readHealth(env: AgentEnv, rec: ReplicaRecord): Promise<HealthRecord> {
  const h = await readJson<HealthRecord>(healthPath(env, rec.replica)).catch(() => null);
  if (h && h.pid === rec.pid && h.pidStartTime === rec.pidStartTime) return h;
  return { pid: rec.pid, pidStartTime: rec.pidStartTime };
}

export async function writeHealth(env: AgentEnv, id: string, h: HealthRecord): Promise<void> {
  await writeFileAtomic(healthPath(env, id), JSON.stringify(h) + '\n');
}
