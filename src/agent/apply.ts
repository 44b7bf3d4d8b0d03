// `agent apply` (docs/protocol.md): start and stop replicas on this node.
// Idempotent both ways, and one failing op never stops the others: each op's
// outcome is a result, never an exception.

import type { AgentApplyReply, AgentApplyRequest, ApplyResult, StartRequest, StopEntry } from '../types/snapshot.js';
import { compileExpect } from './answer-check.js';
import type { AgentEnv } from './env.js';
import { admit, type Admission } from './fence.js';
import { stopId } from './request.js';
import { stopJobEngine } from './job-stop.js';
import { launch } from './launch.js';
import { isAlive, stopProcessGroup } from './process.js';
import { listRecords, readRecord, removeRecord, writeRecord } from './replica-store.js';
import { errnoCode } from '../util/errno.js';

/** How long a replica gets between SIGTERM and SIGKILL when the request says nothing; `LLMGW_AGENT_STOP_TIMEOUT` (seconds) overrides. */
export const DEFAULT_STOP_GRACE_MS = 10_000;

/**
 * No stop waits longer than this, whatever the request or the environment say.
 * Stops run in parallel, so an apply's stops take at most this plus the 5 s
 * that SIGKILL is given: about 35 s, well inside the SSH command timeout (60 s
 * by default) that the reply must beat. A longer wait belongs to the
 * reconciler's drain (across ticks), not to one SSH call.
 */
export const MAX_STOP_GRACE_MS = 30_000;

/** The grace one stop gets: the entry's graceSeconds, else the environment's default, clamped to MAX_STOP_GRACE_MS. */
export function stopGraceMs(entry: StopEntry, env: AgentEnv): number {
  const s = Number(env.LLMGW_AGENT_STOP_TIMEOUT);
  const fallback = env.LLMGW_AGENT_STOP_TIMEOUT !== undefined && Number.isFinite(s) && s >= 0 ? s * 1000 : DEFAULT_STOP_GRACE_MS;
  const asked = typeof entry === 'string' || entry.graceSeconds === undefined ? fallback : entry.graceSeconds * 1000;
  return Number.isFinite(asked) && asked >= 0 ? Math.min(asked, MAX_STOP_GRACE_MS) : Math.min(fallback, MAX_STOP_GRACE_MS);
}

function describe(err: unknown, command: string): string {
  const code = errnoCode(err);
  if (code === 'ENOENT') return `cannot start ${command}: command not found`;
  if (code === 'EACCES') return `cannot start ${command}: permission denied`;
  return err instanceof Error ? err.message : String(err);
}

async function stopOne(env: AgentEnv, entry: StopEntry): Promise<void> {
  const id = stopId(entry);
  const rec = await readRecord(env, id);
  if (rec === null) return; // stopping what is not there is ok
  // A Slurm job's engine is in the job's process group, not one of its own (job-stop.ts).
  await (rec.supervisor === 'slurm' ? stopJobEngine : stopProcessGroup)(rec.pid, rec.pidStartTime, stopGraceMs(entry, env));
  await removeRecord(env, id);
}

async function startOne(env: AgentEnv, start: StartRequest, now: () => Date): Promise<ApplyResult> {
  const result = (ok: boolean, error?: string): ApplyResult =>
    error === undefined ? { replica: start.replica, op: 'start', ok } : { replica: start.replica, op: 'start', ok, error };
  if (start.check !== undefined) {
    // Refused at the start, not found out a timeout later: a check that can never pass is a config mistake.
    const expect = compileExpect(start.check);
    if (typeof expect === 'string') return result(false, expect);
  }
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
    await stopProcessGroup(launched.pid, launched.pidStartTime, stopGraceMs(start.replica, env));
    return result(false, `cannot record ${start.replica}: ${err instanceof Error ? err.message : String(err)}`);
  }
  return result(true);
}

/**
 * One refusal per entry, in the reply's order (starts, then stops). A fenced
 * one also says so as data (`fenced`), so a reconciler learns it lost the lease
 * without reading the message.
 */
function refuseAll(req: AgentApplyRequest, error: string, fenced?: ApplyResult['fenced']): AgentApplyReply {
  const extra = fenced === undefined ? {} : { fenced };
  return {
    version: 1,
    results: [
      ...req.start.map((s): ApplyResult => ({ replica: s.replica, op: 'start', ok: false, error, ...extra })),
      ...req.stop.map((e): ApplyResult => ({ replica: stopId(e), op: 'stop', ok: false, error, ...extra })),
    ],
  };
}

/**
 * Stops first (a stop and a start of one id in one request is a restart, and
 * stopping frees GPUs the starts may need), all at once since each may wait
 * out its grace period (SIGTERM to the process group, up to the grace, then
 * SIGKILL); then starts, one by one. Results: starts, then stops,
 * each in request order.
 */
export async function apply(req: AgentApplyRequest, env: AgentEnv, now: () => Date = () => new Date()): Promise<AgentApplyReply> {
  // A stale holder changes nothing here: every entry is refused, none is half done.
  const admitted: Admission = await admit(env, req.lease, now()).catch((err: unknown) => ({
    ok: false,
    error: `cannot record the lease epoch: ${err instanceof Error ? err.message : String(err)}`,
  }));
  if (!admitted.ok) return refuseAll(req, admitted.error, admitted.fenced);
  return applyOps(req, env, now);
}

async function applyOps(req: AgentApplyRequest, env: AgentEnv, now: () => Date): Promise<AgentApplyReply> {
  // One stop per id: the first entry naming it decides its grace.
  const firstEntries = [...new Map(req.stop.map((e) => [stopId(e), e] as const).reverse()).values()];
  const stopped = new Map(
    await Promise.all(
      firstEntries.map(async (entry): Promise<[string, ApplyResult]> => {
        const id = stopId(entry);
        try {
          await stopOne(env, entry);
          return [id, { replica: id, op: 'stop', ok: true }];
        } catch (err) {
          return [id, { replica: id, op: 'stop', ok: false, error: err instanceof Error ? err.message : String(err) }];
        }
      }),
    ),
  );
  const started: ApplyResult[] = [];
  for (const start of req.start) {
    started.push(
      await startOne(env, start, now).catch((err: unknown) => ({ replica: start.replica, op: 'start' as const, ok: false, error: describe(err, '') })),
    );
  }
  return { version: 1, results: [...started, ...req.stop.map((e) => stopped.get(stopId(e)) as ApplyResult)] };
}

/**
 * Stops every replica this agent has recorded; for tearing down a simulated
 * fleet (tests, `llmgw demo`), whose engines are real detached processes.
 * Returns the ids stopped.
 */
export async function stopAllReplicas(env: AgentEnv): Promise<string[]> {
  const { records } = await listRecords(env);
  const ids = records.map((r) => r.replica);
  // A teardown is this machine's own business, not a reconciler's: no lease to check.
  await applyOps({ version: 1, node: '', start: [], stop: ids }, env, () => new Date());
  return ids;
}
