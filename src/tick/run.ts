// The tick (src/tick/README.md): the one function that runs its phases in
// order — observe, plan, apply, project, render, notify, commit — and every
// command is a mode of it (Terraform's one Operation):
//
//   preview    `llmgw plan`, `llmgw status`: observe (or read), plan, project; no apply
//   by-hand    `llmgw apply`: under the lease from before it observes until it has
//              written: plan, show, confirm, apply, project, write (no commit)
//   reconcile  `llmgw reconcile`, `run`, `demo`: pull, validate, then the whole tick,
//              commit and notify (under the lease: leasedTick, or run-daemon's)
//
// STATUS.md and .llmgw/observed.json describe the fleet as the tick leaves it
// (after.ts); the next tick's commit is the one that sees the new replicas running.

import { emptyOutcome, type ApplyOutcome } from '../apply/outcome.js';
import { formatProblem } from '../errors.js';
import type { GatherProgress } from '../gather/gather.js';
import { STATUS_FILE } from '../store/files.js';
import { committedStatus, previousRun } from '../store/read.js';
import type { Checkout, ConfigRepo, LeaseRefs } from '../git/config-repo.js';
import { LEASE_TTL_MS, heldFence, readIntents, withLease, writeIntents, type HeldLease, type IntentEntry } from '../git/lease.js';
import { intentsOf } from './state.js';
import { applyGuard, type ApplyGuard } from '../apply/guard.js';
import type { Lease } from '../types/snapshot.js';
import { newSpecs, type SpecArgv } from '../plan/new-specs.js';
import { NO_EFFECTS } from '../plan/project-fleet.js';
import type { Config, LoadResult } from '../types/config.js';
import type { Plan } from '../types/plan.js';
import type { Snapshot } from '../types/snapshot.js';
import type { State } from '../types/state.js';
import type { Transport } from '../types/transport.js';
import { afterTick, stateAfter, type After } from './after.js';
import { applyTick, type Applied } from './apply.js';
import { branchConfig } from './branch-config.js';
import { commitTick, decisionLines } from './commit.js';
import { writeAll } from '../store/write.js';
import { clusterAlone, invalidTick } from './invalid.js';
import { queueEvents, sendCommitted, tickEvents } from './notify.js';
import { loadOutboxKey } from '../notify/outbox-key.js';
import type { OutboxKey } from '../notify/outbox-mac.js';
import { observe } from './observe.js';
import { carriedGpuHours, tickGpuHours } from './gpu-hours.js';
import { createGitRunner } from '../git/runner.js';
import { gpuCounts } from '../ledger/buckets.js';
import { planTick, type Planned, type TickInput } from './plan.js';
import { previewTick, type Preview, type PreviewOptions } from './preview.js';
import type { HoldReason, TickResult, TickVerdict } from './result.js';
import { commitMessage, tickNews } from './commit-message.js';
import { resolveTransport, type TransportSource } from './transport-source.js';

export type { TickResult, TickVerdict, HoldReason } from './result.js';

/** The fleet gathered now over SSH: the committed snapshot carries unreachable nodes' last reports and times over. */
export interface Gather {
  transport: Transport;
  previous: Snapshot | null;
  onProgress?: (p: GatherProgress) => void;
}

export interface PreviewMode {
  kind: 'preview';
  config: Config;
  /** state.json as committed (the working tree's, or REF's). */
  state: State;
  /** The ISO time the fleet is judged at (`--now`, or the clock). */
  now: string;
  /** A snapshot read from a file or a ref, or the fleet gathered now. */
  fleet: Snapshot | Gather;
  /** What the STATUS.md diff starts from (null: the fleet as observed). */
  before: PreviewOptions['before'];
  /** REF's config (`plan --base`), planned on the same inputs: what decides each action's cause. */
  baseConfig?: Config | null;
}

export interface PreviewRun {
  kind: 'preview';
  preview: Preview;
  /** The models whose spec this change (or, without a base, the config) gives new replicas. */
  specs: SpecArgv[];
}

/** The answer at `llmgw apply`'s prompt. */
export type Confirmation = 'yes' | 'no' | 'timeout';

export interface ByHandMode {
  kind: 'by-hand';
  /** The checkout's directory: where state.json and the snapshot are read and the generated files written. */
  dir: string;
  config: Config;
  transport: Transport;
  /** The checkout: the lease's remote and its uncommitted edits; null when the directory is not a git checkout. */
  repo: (Pick<Checkout, 'dirtyConfig'> & LeaseRefs) | null;
  force: boolean;
  now: () => Date;
  warn: (message: string) => void;
  /** Show the plan, before anything is asked or applied. */
  show: (preview: Preview) => void;
  /** Ask a person (or answer 'yes' for --yes); called only for a plan with actions that may be applied. */
  confirm: (plan: Plan) => Promise<Confirmation>;
  /** Told what the apply did, before the files are written (a full disk then still shows what took). */
  applied?: (outcome: ApplyOutcome) => void;
  /** How often the lease is renewed while this runs (default: a third of its TTL). */
  renewEveryMs?: number;
}

export interface ByHandRun {
  kind: 'by-hand';
  verdict: TickVerdict;
  /** The lease's holder when another instance holds it (verdict held: lease-elsewhere). */
  lease?: { holder: string; expiresAt: string };
  /** The fleet as the apply left it, as written; absent when nothing was applied. */
  after?: After;
}

export interface ReconcileMode {
  kind?: 'reconcile';
  repo: ConfigRepo;
  /** A transport, or a function giving one for the config just loaded (see transport-source.ts). */
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

export type TickMode = PreviewMode | ByHandMode | ReconcileMode;

/** The options of a reconcile tick (the mode `runTick` takes when none is named). */
export type TickOptions = ReconcileMode;

/**
 * Why this tick must not apply: its lease would run out during the apply
 * (two stages of connect plus command timeout), so another instance could
 * take over and act on the fleet at the same time. A holder that cannot renew
 * stops applying before its lease expires, not after.
 */
function leaseTooShort(expiresAt: Date | undefined, now: Date, config: Config): string | null {
  if (!expiresAt) return null;
  const { connectTimeoutMs, commandTimeoutMs } = config.cluster.ssh;
  const needed = 2 * (connectTimeoutMs + commandTimeoutMs);
  const left = expiresAt.getTime() - now.getTime();
  if (left >= needed) return null;
  return `the lease runs out in ${Math.max(0, Math.floor(left / 1000))}s, less than an apply may take (${needed / 1000}s): applied nothing; raise --lease-ttl if ticks are this slow`;
}

/**
 * How long before its lease's expiry a holder starts no new changing SSH call
 * (docs/safety.md#clocks): one call's connect plus command timeout, so a call
 * started before then ends before the lease does.
 */
export function leaseSafetyMs(config: Config): number {
  return config.cluster.ssh.connectTimeoutMs + config.cluster.ssh.commandTimeoutMs;
}

function guardOf(config: Config, lease: Lease | undefined, expiresAt: () => Date | undefined, now: () => Date): ApplyGuard {
  return applyGuard({ ...(lease ? { lease } : {}), expiresAt, safetyMs: leaseSafetyMs(config), now });
}

/** What the log says when the guard stopped the apply; null when it ran to the end. */
function cutLine(guard: ApplyGuard, outcome: ApplyOutcome): string | null {
  const why = guard.stop();
  if (why === null) return null;
  const left = outcome.results.filter((r) => r.status === 'deferred' && r.reason?.startsWith('not sent:') === true).length;
  return `apply cut at a step boundary: ${why}; ${left} action(s) left for the next tick`;
}

/** state.json records the highest epoch issued, so a lease ref created afresh starts above it. */
function withEpoch(state: State, lease: Lease | undefined): State {
  const epoch = Math.max(state.leaseEpoch ?? 0, lease?.epoch ?? 0);
  return epoch > 0 ? { ...state, leaseEpoch: epoch } : state;
}

/** The lease ran out during the tick: another instance may hold it now, so this one commits nothing. */
function leaseExpired(opts: ReconcileMode): boolean {
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

/** Why a reconcile tick applies nothing, with its line for the log (none for uncommitted edits: reportDraft says it); null when it applies the plan. */
function holdOf(opts: ReconcileMode, config: Config, planned: Planned, dirty: string[]): { reason: HoldReason; detail: string; line: string | null } | null {
  if (dirty.length > 0) return { reason: 'uncommitted-edits', detail: `uncommitted edits to ${dirty.join(', ')}`, line: null };
  if (planned.plan.blocked !== null) return { reason: 'blocked', detail: planned.plan.blocked, line: `plan blocked: ${planned.plan.blocked}; applied nothing` };
  const short = leaseTooShort(opts.leaseExpiresAt, opts.now(), config);
  return short === null ? null : { reason: 'lease-short', detail: short, line: short };
}

/** The observe phase: the fleet as given (a file, a ref), or gathered now, stamped with one time. */
async function observed(
  config: Config,
  state: State,
  fleet: Snapshot | Gather,
  at: Date,
  warn?: (m: string) => void,
  intents: readonly IntentEntry[] = [],
): Promise<TickInput> {
  if (!('transport' in fleet)) return { config, snapshot: fleet, state, now: at.toISOString() };
  return observe(config, { transport: fleet.transport, previous: fleet.previous, state, at, onProgress: fleet.onProgress, intents, ...(warn ? { warn } : {}) });
}

/** Write the plan's starts ahead of sending them (docs/safety.md#write-ahead-intents); nothing when it starts nothing. */
function writeAhead(
  repo: LeaseRefs | null,
  plan: Plan,
  fence: { epoch: number; holder: string } | undefined,
  now: Date,
  warn: (m: string) => void,
): Promise<void> {
  if (repo === null) return Promise.resolve();
  return writeIntents(repo, intentsOf(plan.actions), { holder: fence?.holder ?? '', epoch: fence?.epoch ?? 0, now, warn });
}

export function runTick(mode: PreviewMode): Promise<PreviewRun>;
export function runTick(mode: ByHandMode): Promise<ByHandRun>;
export function runTick(mode: ReconcileMode): Promise<TickResult>;
export async function runTick(mode: TickMode): Promise<PreviewRun | ByHandRun | TickResult> {
  if (mode.kind === 'preview') return preview(mode);
  if (mode.kind === 'by-hand') return byHand(mode);
  return reconcile(mode);
}

/**
 * The preview's plan alone, without projecting it: what `llmgw status` reports
 * (the fleet as observed and its own plan). Projecting a 20,000-node plan and
 * rendering its STATUS.md twice is more than half a preview's time.
 */
export async function plannedPreview(mode: Pick<PreviewMode, 'config' | 'state' | 'fleet' | 'now'>): Promise<Planned> {
  const input = await observed(mode.config, mode.state, mode.fleet, new Date(mode.now));
  // Judged at the time asked for (`--now`), also when the fleet was gathered just now.
  return planTick({ ...input, now: mode.now });
}

async function preview(mode: PreviewMode): Promise<PreviewRun> {
  const input = await observed(mode.config, mode.state, mode.fleet, new Date(mode.now));
  const planned = planTick({ ...input, now: mode.now });
  const basePlan = mode.baseConfig ? planTick({ ...input, now: mode.now, config: mode.baseConfig }).plan : null;
  const specs = newSpecs(mode.config, mode.baseConfig ?? null, planned.fleet, planned.plan);
  const respecced = new Set(basePlan ? specs.map((s) => s.model) : []);
  return { kind: 'preview', preview: previewTick(planned, { before: mode.before, base: basePlan, respecced }), specs };
}

/** A third of the lease's TTL: two renewals may fail before it runs out. */
const LEASE_RENEW_MS = LEASE_TTL_MS / 3;

function byHand(mode: ByHandMode): Promise<ByHandRun> {
  if (mode.repo === null) return byHandUnder(mode, undefined);
  // Taken before anything is observed and held (renewed) through the prompt until the files are written:
  // a plan a person confirmed is never applied after another holder acted (docs/safety.md).
  return withLease(mode.repo, { now: mode.now, renewEveryMs: mode.renewEveryMs ?? LEASE_RENEW_MS, warn: mode.warn }, (lease) => byHandUnder(mode, lease)).then(
    (leased) =>
      leased.held
        ? leased.value
        : {
            kind: 'by-hand',
            verdict: { kind: 'held', reason: 'lease-elsewhere', detail: `the lease is held by ${leased.holder || 'another instance'}` },
            lease: { holder: leased.holder, expiresAt: leased.expiresAt },
          },
  );
}

async function byHandUnder(mode: ByHandMode, lease: HeldLease | undefined): Promise<ByHandRun> {
  const { config, dir } = mode;
  const held = (reason: HoldReason, detail: string): ByHandRun => ({ kind: 'by-hand', verdict: { kind: 'held', reason, detail } });
  const { previous, state } = await previousRun(dir, mode.warn);
  const intents = mode.repo ? await readIntents(mode.repo, mode.warn) : [];
  const planned = planTick(await observed(config, state, { transport: mode.transport, previous }, mode.now(), mode.warn, intents));
  const current = await committedStatus(dir);
  const shown = previewTick(planned, { before: current === null ? null : { text: current, label: STATUS_FILE }, base: null, force: mode.force });
  mode.show(shown);
  const dirty = mode.repo ? await mode.repo.dirtyConfig() : [];
  if (dirty.length > 0) return held('uncommitted-edits', `uncommitted edits to ${dirty.join(', ')}`);
  const plan = planned.plan;
  if (plan.blocked !== null && !mode.force) return held('blocked', plan.blocked);
  if (plan.actions.length > 0) {
    const answer = await mode.confirm(plan);
    if (answer === 'no') return held('declined', 'the plan was not confirmed');
    if (answer === 'timeout') return held('confirm-timeout', 'no answer at the prompt');
  }
  // A renewal that failed while a person thought it over leaves too little lease to act safely.
  const short = leaseTooShort(lease?.expiresAt(), mode.now(), config);
  if (short !== null) return held('lease-short', short);
  const fence = lease ? { epoch: lease.epoch(), holder: lease.holder } : undefined;
  const guard = guardOf(config, fence, () => lease?.expiresAt(), mode.now);
  await writeAhead(mode.repo, plan, fence, mode.now(), mode.warn);
  const applied = await applyTick(planned, mode.transport, guard);
  mode.applied?.(applied.outcome);
  const fenced = guard.fencedBy();
  if (fenced !== null) {
    mode.warn(`${fenced}: another holder has acted since; stopped acting, wrote nothing`);
    return held('fenced', fenced);
  }
  const cut = cutLine(guard, applied.outcome);
  if (cut !== null) mode.warn(cut);
  const after = afterTick(planned, applied.effects, withEpoch(stateAfter(planned, applied), fence), carriedGpuHours(current, planned.now));
  await writeAll(dir, { status: after.status, state: after.state, snapshot: after.snapshot });
  return { kind: 'by-hand', verdict: { kind: 'applied', forced: plan.blocked !== null, outcome: applied.outcome }, after };
}

/** `llmgw reconcile` and `llmgw demo`: one reconcile tick under the lease, let go after. (`llmgw run` keeps it across ticks: run-daemon.ts.) */
export type LeasedTick = { held: true; result: TickResult } | { held: false; holder: string; expiresAt: string };

export async function leasedTick(opts: Omit<ReconcileMode, 'leaseExpiresAt'> & { holder?: string }): Promise<LeasedTick> {
  const leased = await withLease(opts.repo, { holder: opts.holder, now: opts.now, warn: (m) => opts.log(`warning: ${m}`) }, (lease) =>
    runTick({ ...opts, leaseExpiresAt: lease.expiresAt() }),
  );
  return leased.held ? { held: true, result: leased.value } : leased;
}

async function reconcile(opts: ReconcileMode): Promise<TickResult> {
  const { repo, log } = opts;
  await repo.sync(log);
  const at = opts.now();
  const dirtyConfig = await repo.dirtyConfig();
  const { loaded, clusterText, draft } = await branchConfig(repo, dirtyConfig, opts.env);
  // From here on every git call is bounded by the config's git.timeout.
  if (loaded.ok) repo.setGitTimeout?.(loaded.config.cluster.git.timeoutMs);
  // And every commit carries the config's git.email (docs/status.md#which-commits-are-llmgws).
  if (loaded.ok) repo.setGitEmail?.(loaded.config.cluster.git.email);
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
    const verdict: TickVerdict = { kind: 'config-invalid', problems: loaded.errors.length };
    return { verdict, ...facts, plan: null, applied: false, events: inv.events.map((e) => e.event), status: inv.status, report: null, ...done };
  }

  const config = loaded.config;
  const key = await loadOutboxKey(opts.env, config.cluster.ssh.identityFile);
  const transport = resolveTransport(opts.transport, config);
  const intents = await readIntents(repo, (m) => log(`warning: ${m}`));
  const planned = planTick(await observed(config, committed, { transport, previous }, at, (m) => log(`warning: ${m}`), intents));
  const hold = holdOf(opts, config, planned, draft === null ? [] : dirtyConfig);
  if (hold?.line) log(hold.line);
  const draftPlan = draft === null ? undefined : reportDraft(draft, planned, dirtyConfig, log);
  const fence = heldFence(repo);
  const guard = guardOf(config, fence, () => opts.leaseExpiresAt, opts.now);
  if (hold === null) await writeAhead(repo, planned.plan, fence, opts.now(), (m) => log(`warning: ${m}`));
  const applied: Applied = hold === null ? await applyTick(planned, transport, guard) : { outcome: emptyOutcome(), effects: NO_EFFECTS };
  for (const f of applied.outcome.failures) log(`apply: ${f.op} ${f.replica ?? ''} on ${f.host} failed: ${f.error}`.replace('  ', ' '));
  const fenced = guard.fencedBy();
  if (fenced !== null) return fencedTick(planned, applied, fenced, log);
  const cut = cutLine(guard, applied.outcome);
  if (cut !== null) log(cut);

  const updated = stateAfter(planned, hold === null ? applied : null);
  const detected = tickEvents(planned, updated, committed, applied.outcome);
  const state = withEpoch(queueEvents(detected.state, detected.events, config.cluster.notify.webhooks, notifying, key), fence);

  const warn = (m: string) => log(`warning: ${m}`);
  const gpuHours = await tickGpuHours(await committedStatus(repo.dir), planned.now, createGitRunner(repo.dir, opts.env), warn);
  const after = afterTick(planned, applied.effects, state, gpuHours);
  const counts = { running: 0, starting: 0, failed: 0 };
  for (const x of after.fleet.replicas) if (!x.lost) counts[x.state] += 1;
  // With uncommitted edits the tick reports the plan of those edits (null when they are invalid).
  const plan = draftPlan === undefined ? planned.plan : draftPlan;
  const facts = { configInvalid: false, dirtyConfig, blocked: plan?.blocked ?? null, outcome: applied.outcome };
  const news = tickNews({
    events: detected.events,
    fleet: planned.fleet,
    previous,
    committed,
    state: after.state,
    plan: hold === null ? planned.plan : null,
    outcome: applied.outcome,
    decisions: decisionLines(planned),
  });
  const files = { status: after.status, state: after.state, snapshot: after.snapshot };
  const first = await commitTick(repo, files, commitMessage(config.cluster.name, facts, counts, news), commitOptions);
  const done = await sendCommitted(repo, files, first, config.cluster.notify.webhooks, sendOptions(config.cluster.name, key));
  const verdict: TickVerdict =
    hold === null ? { kind: 'applied', forced: false, outcome: applied.outcome } : { kind: 'held', reason: hold.reason, detail: hold.detail };
  return {
    verdict,
    ...facts,
    plan,
    applied: hold === null,
    events: detected.events.map((e) => e.event),
    status: after.status,
    report: after.report,
    ...done,
    leaseLost: hold?.reason === 'lease-short' || done.leaseLost,
    gpus: { at: planned.now, counts: gpuCounts(after.fleet) },
  };
}

/**
 * A node or router refused this holder's epoch: another holder has acted
 * since, so this one stops at once (no further changing call was made after
 * the refusal, guard.ts) and commits nothing — the new holder re-observes.
 */
function fencedTick(planned: Planned, applied: Applied, fenced: string, log: (line: string) => void): TickResult {
  log(`${fenced}: another holder has acted since; stopped acting, committing nothing`);
  const after = afterTick(planned, NO_EFFECTS, planned.state);
  return {
    verdict: { kind: 'held', reason: 'fenced', detail: fenced },
    configInvalid: false,
    dirtyConfig: [],
    plan: planned.plan,
    applied: false,
    blocked: planned.plan.blocked,
    outcome: applied.outcome,
    events: [],
    status: after.status,
    report: after.report,
    commit: null,
    pushed: false,
    pushError: null,
    leaseLost: true,
  };
}
