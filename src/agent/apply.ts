// `agent apply` (docs/protocol.md): start and stop replicas on this node.
// Idempotent both ways, and one failing op never stops the others: each op's
// outcome is a result, never an exception.

import type { AgentApplyReply, AgentApplyRequest, ApplyResult, StartRequest } from '../types/snapshot.js';
import type { AgentEnv } from './env.js';
import { launch } from './launch.js';
import { isAlive, stopProcessGroup } from './process.js';
import { listRecords, readRecord, removeRecord, writeRecord } from './replica-store.js';

/** How long a replica gets between SIGTERM and SIGKILL; `LLMGW_AGENT_STOP_TIMEOUT` (seconds) overrides. */
export const DEFAULT_STOP_GRACE_MS = 10_000;

function stopGraceMs(env: AgentEnv): number {
  const s = Number(env.LLMGW_AGENT_STOP_TIMEOUT);
  return env.LLMGW_AGENT_STOP_TIMEOUT !== undefined && Number.isFinite(s) && s >= 0 ? s * 1000 : DEFAULT_STOP_GRACE_MS;
}

function describe(err: unknown, command: string): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT') return `cannot start ${command}: command not found`;
  if (code === 'EACCES') return `cannot start ${command}: permission denied`;
  return err instanceof Error ? err.message : String(err);
}

async function stopOne(env: AgentEnv, id: string): Promise<void> {
  const rec = await readRecord(env, id);
  if (rec === null) return; // stopping what is not there is ok
  await stopProcessGroup(rec.pid, rec.pidStartTime, stopGraceMs(env));
  await removeRecord(env, id);
}

async function startOne(env: AgentEnv, start: StartRequest, now: () => Date): Promise<ApplyResult> {
  const result = (ok: boolean, error?: string): ApplyResult =>
    error === undefined ? { replica: start.replica, op: 'start', ok } : { replica: start.replica, op: 'start', ok, error };
  const existing = await readRecord(env, start.replica);
  if (existing !== null) {
    if (await isAlive(existing.pid, existing.pidStartTime)) {
      if (existing.spec === start.spec) return result(true);
      return result(false, `replica ${start.replica} already runs with spec ${existing.spec}; stop it before starting spec ${start.spec}`);
    }
    // Recorded but dead: clear what is left of it (orphaned workers too), then start afresh.
    await stopOne(env, start.replica);
  }
  let launched;
  try {
    launched = await launch(start, env);
  } catch (err) {
    return result(false, describe(err, start.command[0] ?? ''));
  }
  try {
    await writeRecord(env, { ...start, ...launched, startedAt: now().toISOString() });
  } catch (err) {
    // An engine nobody recorded could never be reported or stopped: do not leave it running.
    await stopProcessGroup(launched.pid, launched.pidStartTime, stopGraceMs(env));
    return result(false, `cannot record ${start.replica}: ${err instanceof Error ? err.message : String(err)}`);
  }
  return result(true);
}

/**
 * Stops first (a stop and a start of one id in one request is a restart, and
 * stopping frees GPUs the starts may need), all at once since each may wait
 * out its grace period; then starts, one by one. Results: starts, then stops,
 * each in request order.
 */
export async function apply(req: AgentApplyRequest, env: AgentEnv, now: () => Date = () => new Date()): Promise<AgentApplyReply> {
  const stopIds = [...new Set(req.stop)];
  const stopped = new Map(
    await Promise.all(
      stopIds.map(async (id): Promise<[string, ApplyResult]> => {
        try {
          await stopOne(env, id);
          return [id, { replica: id, op: 'stop', ok: true }];
        } catch (err) {
          return [id, { replica: id, op: 'stop', ok: false, error: err instanceof Error ? err.message : String(err) }];
        }
      }),
    ),
  );
  const started: ApplyResult[] = [];
  for (const start of req.start) {
    started.push(await startOne(env, start, now).catch((err: unknown) => ({ replica: start.replica, op: 'start' as const, ok: false, error: describe(err, '') })));
  }
  return { version: 1, results: [...started, ...req.stop.map((id) => stopped.get(id) as ApplyResult)] };
}

/**
 * Stops every replica this agent has recorded; for tearing down a simulated
 * fleet (tests, `llmgw demo`), whose engines are real detached processes.
 * Returns the ids stopped.
 */
export async function stopAllReplicas(env: AgentEnv): Promise<string[]> {
  const { records } = await listRecords(env);
  const ids = records.map((r) => r.replica);
  await apply({ version: 1, node: '', start: [], stop: ids }, env);
  return ids;
}
