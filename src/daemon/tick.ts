// One reconcile tick (docs/overview.md): pull, validate, gather, plan, apply, render,
// commit and push if anything changed, notify. The only async function that
// wires the pipeline together; every stage it calls is a module of its own,
// and the pure ones (fleet, plan, status) take `now` from here.
//
// STATUS.md and .llmgw/observed.json describe the fleet as this tick leaves
// it (after-apply.ts); the next tick's commit is the one that sees the new
// replicas running.

import { executePlan } from '../apply/executor.js';
import { emptyOutcome, type ApplyOutcome } from '../apply/outcome.js';
import { GENERATED_FILES } from '../config/repo-files.js';
import { GitError, formatProblem } from '../errors.js';
import { buildFleet } from '../fleet/index.js';
import { gatherSnapshot } from '../gather/gather.js';
import { previousRun } from '../gather/observe.js';
import type { ConfigRepo } from '../git/config-repo.js';
import { detectEvents, keepUndelivered, type NotifyEvent } from '../notify/events.js';
import { deliver } from '../notify/webhook.js';
import { planFleet } from '../plan/plan-fleet.js';
import type { Config, LoadResult } from '../types/config.js';
import type { Plan } from '../types/plan.js';
import { afterApply } from './after-apply.js';
import { branchConfig } from './branch-config.js';
import { writeGenerated } from './generated-files.js';
import { recordObservedFailures, updateState } from './state-update.js';
import { clusterAlone, invalidTick } from './tick-invalid.js';
import { commitMessage, type TickResult } from './tick-result.js';
import { resolveTransport, type TransportSource } from './transport-for-config.js';

export type { TickResult } from './tick-result.js';

export interface TickOptions {
  repo: ConfigRepo;
  /** A transport, or a function giving one for the config just loaded (see transport-for-config.ts). */
  transport: TransportSource;
  env: Record<string, string | undefined>;
  now: () => Date;
  /** Push the commit (reconcile --no-push: false). */
  push: boolean;
  log: (line: string) => void;
  /** Deliver events to the webhooks (default true); they are detected and recorded either way. */
  notify?: boolean;
  /** When this instance's lease (docs/safety.md) runs out; absent for a single instance. */
  leaseExpiresAt?: Date;
}

/**
 * Why this tick must not apply: its lease would run out during the apply
 * (two stages of connect plus command timeout), so another instance could
 * take over and act on the fleet at the same time. A holder that cannot renew
 * stops applying before its lease expires, not after.
 */
function leaseTooShort(opts: TickOptions, config: Config): string | null {
  if (!opts.leaseExpiresAt) return null;
  const { connectTimeoutMs, commandTimeoutMs } = config.cluster.ssh;
  const needed = 2 * (connectTimeoutMs + commandTimeoutMs);
  const left = opts.leaseExpiresAt.getTime() - opts.now().getTime();
  if (left >= needed) return null;
  return `the lease runs out in ${Math.max(0, Math.floor(left / 1000))}s, less than an apply may take (${needed / 1000}s): applied nothing; raise --lease-ttl if ticks are this slow`;
}

/** The lease ran out during the tick: another instance may hold it now, so this one commits nothing. */
function leaseExpired(opts: TickOptions): boolean {
  return opts.leaseExpiresAt !== undefined && opts.now().getTime() >= opts.leaseExpiresAt.getTime();
}

/** Sends the events; resolves with those no webhook took, to be sent again next tick. */
async function notifyAll(opts: TickOptions, webhooks: Config['cluster']['notify']['webhooks'], events: NotifyEvent[]): Promise<NotifyEvent[]> {
  if (opts.notify === false || events.length === 0 || webhooks.length === 0) return [];
  // Its state will not be committed (commitAndPush), so the next holder detects these again and sends them once.
  if (leaseExpired(opts)) return [];
  // deliver never throws: a webhook down is a logged line (with no URL or secret), never a failed tick.
  const { undelivered } = await deliver(webhooks, events, { log: (line) => opts.log(`notify: ${line}`) });
  return undelivered;
}

async function commitAndPush(opts: TickOptions, message: string | null, result: TickResult): Promise<void> {
  if (leaseExpired(opts)) {
    result.leaseLost = true;
    opts.log('the lease ran out during the tick: committing nothing (the next holder re-observes and commits)');
    return;
  }
  if (message !== null) {
    result.commit = await opts.repo.commit(GENERATED_FILES, message);
    if (result.commit !== null) opts.log(`committed ${result.commit.slice(0, 12)}: ${message}`);
  }
  if (!opts.push || !opts.repo.hasRemote) return;
  // Also an earlier tick's commit whose push failed or was skipped (--no-push).
  if (result.commit === null && !(await opts.repo.unpushed())) return;
  try {
    await opts.repo.push();
    result.pushed = true;
  } catch (err) {
    if (!(err instanceof GitError)) throw err;
    // The commit stays; the next tick's sync rebases it and pushes again.
    result.pushError = err.message;
    opts.log(`push failed: ${err.message}`);
  }
}

function blankResult(): TickResult {
  return {
    configInvalid: false, dirtyConfig: [], plan: null, blocked: null, applied: false, outcome: null,
    events: [], status: '', commit: null, pushed: false, pushError: null, leaseLost: false,
  };
}

/** Uncommitted edits are checked and planned for the log, never applied (docs/overview.md). */
function reportDraft(draft: LoadResult, fleetOf: (config: Config) => Plan, result: TickResult, log: (line: string) => void): void {
  const files = result.dirtyConfig.join(', ');
  if (!draft.ok) {
    log(`uncommitted edits to ${files} are invalid (${draft.errors.length} problem${draft.errors.length === 1 ? '' : 's'}); applied nothing (only committed config is applied)`);
    for (const p of draft.errors) log(`  ${formatProblem(p)}`);
    return;
  }
  result.plan = fleetOf(draft.config);
  result.blocked = result.plan.blocked;
  log(`uncommitted edits to ${files}: planned ${result.plan.actions.length} action(s), applied nothing (only committed config is applied)`);
}

export async function runTick(opts: TickOptions): Promise<TickResult> {
  const { repo, log } = opts;
  const result = blankResult();
  await repo.sync();
  const now = opts.now();
  result.dirtyConfig = await repo.dirtyConfig();
  const { loaded, clusterText, draft } = await branchConfig(repo, result.dirtyConfig, opts.env);
  // A broken observed.json or state.json is a warning: the fleet is re-observed anyway.
  const { previous, state: committed } = await previousRun(repo.dir, (m) => log(`warning: ${m}`));

  if (!loaded.ok) {
    result.configInvalid = true;
    log(`config invalid (${loaded.errors.length} problem${loaded.errors.length === 1 ? '' : 's'}): nothing applied`);
    const cluster = clusterAlone(clusterText, opts.env);
    const inv = await invalidTick(repo.dir, committed, loaded.errors, cluster.name, now);
    result.status = inv.status;
    result.events = inv.events.map((e) => e.event);
    const unsent = await notifyAll(opts, cluster.webhooks, inv.events);
    const invState = keepUndelivered(committed, inv.state, unsent);
    const changed = await writeGenerated(repo, { status: inv.status, state: invState, snapshot: null });
    await commitAndPush(opts, changed ? commitMessage(cluster.name || null, result) : null, result);
    return result;
  }

  const config = loaded.config;
  const transport = resolveTransport(opts.transport, config);
  const snapshot = await gatherSnapshot(config, { transport, previous, state: committed, now: opts.now });
  const state = recordObservedFailures(committed, snapshot, now);
  const fleet = buildFleet(config, snapshot, state, now.toISOString());
  const plan = planFleet(fleet, state);
  result.plan = plan;
  result.blocked = plan.blocked;

  let outcome: ApplyOutcome = emptyOutcome();
  const leaseShort = leaseTooShort(opts, config);
  if (draft !== null) {
    result.plan = null;
    result.blocked = null;
    reportDraft(draft, (c) => planFleet(buildFleet(c, snapshot, state, now.toISOString()), state), result, log);
  } else if (plan.blocked !== null) {
    log(`plan blocked: ${plan.blocked}; applied nothing`);
  } else if (leaseShort !== null) {
    result.leaseLost = true;
    log(leaseShort);
  } else {
    outcome = await executePlan(plan, { config, fleet, transport });
    result.applied = true;
    for (const f of outcome.failures) log(`apply: ${f.op} ${f.replica ?? ''} on ${f.host} failed: ${f.error}`.replace('  ', ' '));
  }
  result.outcome = outcome;

  const updated = updateState(state, { snapshot, outcome, now });
  const detected = detectEvents(updated, {
    cluster: config.cluster.name,
    fleet,
    plan,
    applyFailures: [
      ...outcome.failures.map((f) =>
        f.replica === null ? { replica: f.host, node: f.host, error: f.error, router: true as const } : { replica: f.replica, node: f.host, error: f.error },
      ),
      // A start that failed after `agent apply` accepted it, newly seen this tick.
      ...state.startFailures.filter((f) => !committed.startFailures.includes(f)).map((f) => ({ replica: f.replica, node: f.node, error: f.error })),
    ],
    configErrors: null,
    now: now.toISOString(),
  });
  result.events = detected.events.map((e) => e.event);
  const unsent = await notifyAll(opts, config.cluster.notify.webhooks, detected.events);
  const nextState = keepUndelivered(updated, detected.state, unsent);

  const after = afterApply({ config, snapshot, fleet, plan, outcome, state: nextState, now: now.toISOString() });
  result.status = after.status;
  const changed = await writeGenerated(repo, { status: result.status, state: nextState, snapshot: after.snapshot });
  const counts = { running: 0, starting: 0, failed: 0 };
  for (const x of after.fleet.replicas) if (!x.lost) counts[x.state] += 1;
  await commitAndPush(opts, changed ? commitMessage(config.cluster.name, result, counts) : null, result);
  return result;
}
