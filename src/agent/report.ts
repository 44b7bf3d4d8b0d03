// `agent report` (docs/protocol.md): GPUs, replicas and
// storage, in one cheap pass bounded in time. nvidia-smi is the only process
// spawned (two queries at once, 15 s each at most); storage is read one level
// deep; every replica is observed at once and alongside them: a health probe
// (1 s), then its metrics when it has them (2 s), then, when due, one answer-check attempt (10 s). So a report takes at
// most about 30 s (nvidia-smi asked twice on an old driver), and about 15 s
// otherwise: well inside the SSH command timeout (60 s by default).

import type { AgentReport, AgentReportRequest, ReplicaLoad, ReplicaReport } from '../types/snapshot.js';
import { checkSettings, runCheck, type CheckSettings } from './answer-check.js';
import { checkDue, gateOnCheck } from './check-state.js';
import type { AgentEnv } from './env.js';
import { ourPids, withForeign } from './foreign.js';
import { readGpus } from './gpus.js';
import { healthUrl, probeHealth } from './health-probe.js';
import { isAlive } from './process.js';
import { cleanText } from './quote.js';
import { deriveState } from './replica-state.js';
import { listRecords, readHealth, readLoad, writeHealth, writeLoad, type ReplicaRecord } from './replica-store.js';
import { DEFAULT_STALL_AFTER_MS, judgeLoad, sampleOf } from './engine-load.js';
import { fetchMetrics } from './metrics-probe.js';
import { parseXids, xidsByGpu } from './kernel-log.js';
import { markRead, readKernelLog, readSince } from './kernel-log-source.js';
import { scanStorage } from './storage.js';

/** A report is data for a tick, not a log: past these, warnings are summarised (the schema allows 1000 of 4096 chars). */
export const MAX_WARNINGS = 100;
export const MAX_WARNING_CHARS = 1000;

/**
 * The replica's load from its engine's metrics, when it was started with a
 * metrics entry and its health answers; the sample is kept for the next report's
 * stall judgement. A page that cannot be read is a warning and no `load`.
 */
async function observeLoad(env: AgentEnv, rec: ReplicaRecord, healthy: boolean, now: Date): Promise<{ load?: ReplicaLoad; warning?: string }> {
  const entry = rec.metrics;
  if (entry === undefined || !healthy) return {};
  const page = await fetchMetrics(rec.endpoint, entry.path);
  if (page.kind === 'none') return {};
  if (page.kind === 'problem') return { warning: `metrics of ${rec.replica} unreadable: ${page.detail}` };
  const sampled = sampleOf(page.text, entry);
  if ('missing' in sampled) return { warning: `metrics of ${rec.replica} lack ${sampled.missing.map((n) => cleanText(n, 200)).join(', ')}` };
  const stallAfterMs = rec.stallAfterSeconds === undefined ? DEFAULT_STALL_AFTER_MS : rec.stallAfterSeconds * 1000;
  const judged = judgeLoad(await readLoad(env, rec.replica), rec, sampled.sample, now, stallAfterMs);
  try {
    await writeLoad(env, rec.replica, judged.record);
  } catch (err) {
    return { load: judged.load, warning: `cannot record load of ${rec.replica}: ${err instanceof Error ? err.message : String(err)}` };
  }
  return { load: judged.load };
}

async function observeReplica(env: AgentEnv, rec: ReplicaRecord, now: Date, settings: CheckSettings): Promise<{ replica: ReplicaReport; warning?: string }> {
  const before = await readHealth(env, rec);
  const alive = before.failed ? false : await isAlive(rec.pid, rec.pidStartTime);
  const healthy = alive ? await probeHealth(healthUrl(rec.endpoint, rec.health)) : false;
  // Only a healthy engine is asked: a starting one has no metrics yet, and saying so every report is noise.
  const load = await observeLoad(env, rec, healthy, now);
  let derived = deriveState(rec, before, { alive, healthy, now });
  const check = rec.check;
  if (check !== undefined) {
    const due = checkDue(rec, derived, healthy, now, settings.intervalMs);
    const attempt = due ? await runCheck({ endpoint: rec.endpoint, model: rec.model, check }, now, settings.attemptMs) : null;
    derived = gateOnCheck(rec, derived, attempt, now);
  }
  let warning = [derived.warning, load.warning].filter(Boolean).join('; ') || undefined;
  if (derived.health !== before) {
    // A read-only state directory costs the memory of past health, not the report.
    await writeHealth(env, rec.replica, derived.health).catch((err: unknown) => {
      warning = [warning, `cannot record health of ${rec.replica}: ${err instanceof Error ? err.message : String(err)}`].filter(Boolean).join('; ');
    });
  }
  const { failed, check: lastCheck } = derived.health;
  const replica: ReplicaReport = {
    id: rec.replica,
    model: rec.model,
    gpus: rec.gpus,
    state: derived.state,
    startedAt: rec.startedAt,
    endpoint: rec.endpoint,
    port: rec.port,
    rank: rec.rank,
    spec: rec.spec,
    ...(derived.state === 'failed' && failed !== undefined ? { error: cleanText(failed.reason, MAX_WARNING_CHARS) } : {}),
    ...(check !== undefined && lastCheck !== undefined ? { check: lastCheck } : {}),
    ...(load.load !== undefined && derived.state !== 'failed' ? { load: load.load } : {}),
    ...(rec.slurmJob !== undefined ? { slurmJob: rec.slurmJob } : {}),
  };
  return warning === undefined ? { replica } : { replica, warning };
}

/**
 * Each GPU's Xids from the log just read, and the mark moved on so the next
 * report does not repeat them. An unreadable log moves no mark (the next report
 * tries the same span again) and reports no `xid` at all: unknown, said in a warning.
 */
async function gpuFaults(
  env: AgentEnv,
  log: Awaited<ReturnType<typeof readKernelLog>>,
  since: { sinceMs: number; seen: Set<string> },
  untilMs: number,
  busIds: Map<number, string>,
): Promise<{ byGpu: Map<number, { code: number; at: string }[]>; warnings: string[] }> {
  // No bus ids (no GPUs, or nvidia-smi failed, said already): keep the mark, so faults are matched once the GPUs are listed again.
  if (busIds.size === 0) return { byGpu: new Map(), warnings: [] };
  if ('error' in log) return { byGpu: new Map(), warnings: [`GPU faults unknown: kernel log unreadable (${log.error})`] };
  const parsed = parseXids(log.text, since.sinceMs, untilMs, since.seen);
  const matched = xidsByGpu(parsed.xids, busIds);
  const warnings = [...matched.warnings];
  await markRead(env, untilMs, parsed.untimed).catch((err: unknown) => {
    warnings.push(`cannot record how far the kernel log was read: ${err instanceof Error ? err.message : String(err)}`);
  });
  return { byGpu: matched.byGpu, warnings };
}

/** Each warning one clean bounded line; at most MAX_WARNINGS of them, the rest counted. */
export function boundWarnings(warnings: string[]): string[] {
  const clean = warnings.map((w) => cleanText(w, MAX_WARNING_CHARS));
  if (clean.length <= MAX_WARNINGS) return clean;
  return [...clean.slice(0, MAX_WARNINGS - 1), `… and ${clean.length - MAX_WARNINGS + 1} more warnings`];
}

export async function report(req: AgentReportRequest, env: AgentEnv, now: () => Date = () => new Date()): Promise<AgentReport> {
  const at = now();
  const settings = checkSettings(env);
  // Records first (a few small local files), so the replicas' probes and checks overlap nvidia-smi and storage.
  const records = await listRecords(env);
  const since = await readSince(env, at.getTime());
  const [gpus, kernelLog, storage, observed] = await Promise.all([
    readGpus(env),
    readKernelLog(env, since.sinceMs),
    scanStorage(req),
    Promise.all(records.records.map((rec) => observeReplica(env, rec, at, settings))),
  ]);
  const ours =
    gpus.apps === null
      ? null
      : await ourPids(
          gpus.apps.map((a) => a.pid),
          records.records,
        );
  const listed = gpus.apps === null || ours === null ? gpus.gpus : withForeign(gpus.gpus, gpus.apps, ours);
  const faults = await gpuFaults(env, kernelLog, since, at.getTime(), gpus.busIds);
  return {
    version: 1,
    gpus: listed.map((g) => {
      const xid = faults.byGpu.get(g.index);
      return xid === undefined ? g : { ...g, xid };
    }),
    replicas: observed.map((o) => o.replica),
    storage: storage.storage,
    warnings: boundWarnings([
      ...gpus.warnings,
      ...faults.warnings,
      ...storage.warnings,
      ...records.warnings,
      ...observed.flatMap((o) => (o.warning === undefined ? [] : [o.warning])),
    ]),
  };
}
