// `agent report` (docs/protocol.md, docs/notes/agent.md): GPUs, replicas and
// storage, in one cheap pass. nvidia-smi is the only process spawned (two
// queries at once); storage is read one level deep; the replicas' health probes
// all run at once under a one-second timeout.

import type { AgentReport, AgentReportRequest, ReplicaReport } from '../types/snapshot.js';
import type { AgentEnv } from './env.js';
import { ourPids, withForeign } from './foreign.js';
import { readGpus } from './gpus.js';
import { healthUrl, probeHealth } from './health-probe.js';
import { isAlive } from './process.js';
import { deriveState } from './replica-state.js';
import { listRecords, readHealth, writeHealth, type ReplicaRecord } from './replica-store.js';
import { scanStorage } from './storage.js';

async function observeReplica(env: AgentEnv, rec: ReplicaRecord, now: Date): Promise<{ replica: ReplicaReport; warning?: string }> {
  const before = await readHealth(env, rec);
  const alive = before.failed ? false : await isAlive(rec.pid, rec.pidStartTime);
  const healthy = alive ? await probeHealth(healthUrl(rec.endpoint, rec.health)) : false;
  const derived = deriveState(rec, before, { alive, healthy, now });
  let warning = derived.warning;
  if (derived.health !== before) {
    // A read-only state directory costs the memory of past health, not the report.
    await writeHealth(env, rec.replica, derived.health).catch((err: unknown) => {
      warning = [warning, `cannot record health of ${rec.replica}: ${err instanceof Error ? err.message : String(err)}`].filter(Boolean).join('; ');
    });
  }
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
  };
  return warning === undefined ? { replica } : { replica, warning };
}

export async function report(req: AgentReportRequest, env: AgentEnv, now: () => Date = () => new Date()): Promise<AgentReport> {
  const [gpus, storage, records] = await Promise.all([readGpus(env), scanStorage(req), listRecords(env)]);
  const at = now();
  const [observed, ours] = await Promise.all([
    Promise.all(records.records.map((rec) => observeReplica(env, rec, at))),
    gpus.apps === null ? null : ourPids(gpus.apps.map((a) => a.pid), records.records),
  ]);
  return {
    version: 1,
    gpus: ours === null || gpus.apps === null ? gpus.gpus : withForeign(gpus.gpus, gpus.apps, ours),
    replicas: observed.map((o) => o.replica),
    storage: storage.storage,
    warnings: [
      ...gpus.warnings,
      ...storage.warnings,
      ...records.warnings,
      ...observed.flatMap((o) => (o.warning === undefined ? [] : [o.warning])),
    ],
  };
}
