// One reconcile tick (docs/overview.md): pull, validate, then the pipeline of
// src/tick — observe, plan, apply, project, render, commit — and notify. This
// is the only async function that wires those phases together for `llmgw
// reconcile`, `llmgw run` and `llmgw demo`; `llmgw plan` and `llmgw apply`
// drive the same phases (src/cli/commands/plan.ts, apply.ts).
//
// STATUS.md and .llmgw/observed.json describe the fleet as this tick leaves it
// (src/tick/after.ts); the next tick's commit is the one that sees the new
// replicas running.

import { emptyOutcome } from '../apply/outcome.js';
import { formatProblem } from '../errors.js';
import { previousRun } from '../gather/observe.js';
import type { ConfigRepo } from '../git/config-repo.js';
import { NO_EFFECTS } from '../plan/project-fleet.js';
import { afterTick, stateAfter } from '../tick/after.js';
import { applyTick, type Applied } from '../tick/apply.js';
import { commitTick } from '../tick/commit.js';
import { loadOutboxKey } from '../notify/outbox-key.js';
import { queueEvents, sendCommitted, tickEvents } from '../tick/notify.js';
import { observe } from '../tick/observe.js';
import { planTick, type Planned } from '../tick/plan.js';
import type { OutboxKey } from '../notify/outbox-mac.js';
import type { Config, LoadResult } from '../types/config.js';
import type { Plan } from '../types/plan.js';
import { branchConfig } from './branch-config.js';
import { clusterAlone, invalidTick } from './tick-invalid.js';
import { commitMessage, tickNews, type TickResult } from './tick-result.js';
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

/** Uncommitted edits are checked and planned for the log, never applied (docs/overview.md). */
function reportDraft(draft: LoadResult, planned: Planned, dirty: string[], log: (line: string) => void): Plan | null {
  const files = dirty.join(', ');
  if (!draft.ok) {
    log(
      `uncommitted edits to ${files} are invalid (${draft.errors.length} problem${draft.errors.length === 1 ? '' : 's'}); applied nothing (only committed config is applied)`,
    );
    for (const p of draft.errors) log(`  ${formatProblem(p)}`);
    return null;
  }
  const plan = planTick({ config: draft.config, snapshot: planned.snapshot, state: planned.state, now: planned.now }).plan;
  log(`uncommitted edits to ${files}: planned ${plan.actions.length} action(s), applied nothing (only committed config is applied)`);
  return plan;
}

/** Why this tick applies nothing, as a line for the log; null when it applies the plan. */
function holdReason(opts: TickOptions, config: Config, planned: Planned, draft: LoadResult | null): { line: string | null; leaseShort: boolean } | null {
  if (draft !== null) return { line: null, leaseShort: false };
  if (planned.plan.blocked !== null) return { line: `plan blocked: ${planned.plan.blocked}; applied nothing`, leaseShort: false };
  const short = leaseTooShort(opts, config);
  return short === null ? null : { line: short, leaseShort: true };
}

export async function runTick(opts: TickOptions): Promise<TickResult> {
  const { repo, log } = opts;
  await repo.sync(log);
  const at = opts.now();
  const dirtyConfig = await repo.dirtyConfig();
  const { loaded, clusterText, draft } = await branchConfig(repo, dirtyConfig, opts.env);
  // From here on every git call is bounded by the config's git.timeout.
  if (loaded.ok) repo.setGitTimeout?.(loaded.config.cluster.git.timeoutMs);
  // A broken observed.json or state.json is a warning: the fleet is re-observed anyway.
  const { previous, state: committed } = await previousRun(repo.dir, (m) => log(`warning: ${m}`));
  const commitOptions = { push: opts.push, leaseExpired: () => leaseExpired(opts), log };
  const notifying = opts.notify !== false;
  const sendOptions = (cluster: string, key: OutboxKey, hooksKnown = true) => ({
    // With cluster.yaml itself invalid its webhooks are unknown, not gone: what they are owed waits.
    enabled: notifying && hooksKnown,
    now: opts.now,
    log,
    key,
    commit: commitOptions,
    message: (n: number) => `llmgw: notified ${n} event${n === 1 ? '' : 's'}${cluster ? ` (${cluster})` : ''}`,
  });

  if (!loaded.ok) {
    log(`config invalid (${loaded.errors.length} problem${loaded.errors.length === 1 ? '' : 's'}): nothing applied`);
    // Each problem as validate prints it (escaped by the loader): the log says what to fix, not only that something is wrong.
    for (const p of loaded.errors) log(`  ${formatProblem(p)}`);
    const cluster = clusterAlone(clusterText, opts.env);
    const key = await loadOutboxKey(opts.env, cluster.identityFile);
    const inv = await invalidTick(repo.dir, committed, loaded.errors, cluster.name, at);
    const state = queueEvents(inv.state, inv.events, cluster.webhooks, notifying, key);
    const facts = { configInvalid: true, dirtyConfig, blocked: null, outcome: null };
    const files = { status: inv.status, state, snapshot: null };
    const first = await commitTick(repo, files, commitMessage(cluster.name || null, facts), commitOptions);
    const done = await sendCommitted(repo, files, first, cluster.webhooks, sendOptions(cluster.name, key, cluster.name !== ''));
    return { ...facts, plan: null, applied: false, events: inv.events.map((e) => e.event), status: inv.status, report: null, ...done };
  }

  const config = loaded.config;
  const key = await loadOutboxKey(opts.env, config.cluster.ssh.identityFile);
  const transport = resolveTransport(opts.transport, config);
  const planned = planTick(await observe(config, { transport, previous, state: committed, at }));
  const hold = holdReason(opts, config, planned, draft);
  if (hold?.line) log(hold.line);
  const draftPlan = draft === null ? undefined : reportDraft(draft, planned, dirtyConfig, log);
  const applied: Applied = hold === null ? await applyTick(planned, transport) : { outcome: emptyOutcome(), effects: NO_EFFECTS };
  for (const f of applied.outcome.failures) log(`apply: ${f.op} ${f.replica ?? ''} on ${f.host} failed: ${f.error}`.replace('  ', ' '));

  const updated = stateAfter(planned, hold === null ? applied : null);
  const detected = tickEvents(planned, updated, committed, applied.outcome);
  const state = queueEvents(detected.state, detected.events, config.cluster.notify.webhooks, notifying, key);

  const after = afterTick(planned, applied.effects, state);
  const counts = { running: 0, starting: 0, failed: 0 };
  for (const x of after.fleet.replicas) if (!x.lost) counts[x.state] += 1;
  // With uncommitted edits the tick reports the plan of those edits (null when they are invalid).
  const plan = draftPlan === undefined ? planned.plan : draftPlan;
  const facts = { configInvalid: false, dirtyConfig, blocked: plan?.blocked ?? null, outcome: applied.outcome };
  const news = tickNews(detected.events, planned.fleet, applied.outcome);
  const files = { status: after.status, state: after.state, snapshot: after.snapshot };
  const first = await commitTick(repo, files, commitMessage(config.cluster.name, facts, counts, news), commitOptions);
  const done = await sendCommitted(repo, files, first, config.cluster.notify.webhooks, sendOptions(config.cluster.name, key));
  return {
    ...facts,
    plan,
    applied: hold === null,
    events: detected.events.map((e) => e.event),
    status: after.status,
    report: after.report,
    ...done,
    leaseLost: (hold?.leaseShort ?? false) || done.leaseLost,
  };
}
