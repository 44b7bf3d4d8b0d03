// Executes a plan in docs/safety.md's order:
//   (0) router tables, when a replica about to be stopped is in them
//   (1) stops that free capacity (no waitFor)
//   (2) starts: one `agent apply` per node, every node at once
//   (3) router tables to every router
//   (4) stops whose waitFor replicas are all running; the rest wait for a later tick
// Which stops run this tick is known before anything runs (readiness is what
// this tick observed), so every table push already leaves them out. One node
// failing never stops the rest; every action gets its own result. A replica
// leaves every router's table before it stops: when a router did not take the
// table without it, the stop of a replica it may still send requests to waits
// for a later tick (a stop of one no router lists goes ahead). Every router
// gets the whole table again at the next tick.
//
// A stop in phase `drain` (docs/safety.md#stopping-a-replica) calls no node: it takes the
// replica out of every table (steps 0 and 3 leave it out, as every later tick's
// tables do while it drains) and a later tick stops it. A stop in phase `stop`
// tells the agent the model's stopGrace (SIGTERM, then SIGKILL).
//
// In `mode: jobs` (docs/slurm.md#jobs-mode-mode-jobs) a start is one `sbatch`
// per rank on slurm.host instead of `agent apply` (the agent inside the job
// records the replica), and a stop in phase `stop` is `scancel --full
// --signal=TERM` of the plan's jobs, then the agent's stop with the grace
// (it waits for the engine to go and removes the record), then `scancel`.

import type { Config } from '../types/config.js';
import type { Fleet } from '../types/fleet.js';
import type { Plan, PlanJob, StartAction, StopAction } from '../types/plan.js';
import type { RouterObservation } from '../types/snapshot.js';
import type { Transport } from '../types/transport.js';
import { startRequests, stopEntry, type NodeStart } from './agent-requests.js';
import { applyOnNodes, batchesOf, resultKey } from './node-calls.js';
import type { ActionResult, ApplyFailure, ApplyOutcome, RouterTableResult } from './outcome.js';
import { heldOut, heldOutOfTables } from './routed.js';
import { currentEjections, currentTables, endpointTable, pushTables, serving } from './router-tables.js';
import { isDrain, scheduleApply } from './schedule.js';
import { openGuard, type ApplyGuard } from './guard.js';
import { cancelAll, submitRank, type SlurmCall } from './slurm-jobs.js';
import { jobsMode, planJobs } from '../slurm/submit.js';

export interface ApplyContext {
  config: Config;
  fleet: Fleet;
  transport: Transport;
  /** The lease every changing request carries, and when to stop making them (guard.ts); default: no lease, no deadline. */
  guard?: ApplyGuard;
  /** The routers as this tick observed them: their `usage` replies say which routes they hold now (router-tables.ts). */
  routers?: readonly RouterObservation[];
}

interface Run {
  ctx: ApplyContext;
  guard: ApplyGuard;
  results: Map<string, ActionResult>;
  failures: ApplyFailure[];
  tables: Map<string, RouterTableResult>;
  /** Jobs mode: the plan's Slurm jobs (src/slurm/submit.ts); null outside it. */
  jobs: PlanJob[] | null;
}

function fail(run: Run, op: 'start' | 'stop', replica: string, model: string, nodes: string[], errors: { node: string; error: string }[], port?: number): void {
  run.results.set(resultKey(op, replica), {
    op,
    replica,
    model,
    status: 'failed',
    nodes,
    error: errors.map((e) => `${e.node}: ${e.error}`).join('; '),
  });
  for (const e of errors) run.failures.push({ op, replica, model, host: e.node, error: e.error, ...(port === undefined ? {} : { port }) });
}

async function runStops(run: Run, all: StopAction[]): Promise<void> {
  const { fleet, config, transport } = run.ctx;
  // A drain's part this tick is the table push: it has begun once the tables leave the replica out.
  for (const s of all.filter(isDrain)) {
    run.results.set(resultKey('stop', s.replica), {
      op: 'stop',
      replica: s.replica,
      model: s.model,
      status: 'ok',
      nodes: s.placement.map((p) => p.node),
      phase: 'drain',
    });
  }
  const stops = all.filter((s) => !isDrain(s));
  const calls: { node: string; replica: string; entry: ReturnType<typeof stopEntry> }[] = [];
  const skipped = new Map<string, { node: string; error: string }[]>();
  for (const s of stops) {
    for (const p of s.placement) {
      const condition = fleet.nodeByName.get(p.node)?.condition ?? 'lost';
      // A rank on a lost node counts as gone (docs/placement.md): nothing to stop there.
      if (condition === 'lost') continue;
      if (condition === 'unreachable') {
        const list = skipped.get(s.replica) ?? [];
        list.push({ node: p.node, error: 'node is unreachable; stopped once it answers' });
        skipped.set(s.replica, list);
      } else calls.push({ node: p.node, replica: s.replica, entry: stopEntry(s, fleet) });
    }
  }
  // Jobs mode: TERM the jobs first; the agent's stop then waits out the grace for the engine to go.
  const jobs = (run.jobs ?? []).filter((j) => j.op === 'cancel' && stops.some((s) => s.replica === j.replica));
  const term = await cancelAll(config, transport, run.guard, jobs, 'term');
  const byNode = await applyOnNodes(batchesOf([], calls), config, transport, run.guard);
  const kill = await cancelAll(config, transport, run.guard, jobs, 'kill');
  for (const s of stops) {
    // A node the cut apply never called: the stop is left for the next tick (deferred at the end).
    if (calls.some((c) => c.replica === s.replica && !byNode.has(c.node))) continue;
    if (jobs.some((j) => j.replica === s.replica && j.id !== undefined && term.get(j.id) === null)) continue;
    const errors = [...(skipped.get(s.replica) ?? []), ...unended(run, jobs, s, term, kill)];
    for (const c of calls) {
      if (c.replica !== s.replica) continue;
      const r = byNode.get(c.node)?.get(resultKey('stop', s.replica));
      if (r && !r.ok) errors.push({ node: c.node, error: r.error });
    }
    const nodes = s.placement.map((p) => p.node);
    if (errors.length > 0) fail(run, 'stop', s.replica, s.model, nodes, errors);
    else run.results.set(resultKey('stop', s.replica), { op: 'stop', replica: s.replica, model: s.model, status: 'ok', nodes });
  }
}

/**
 * A job neither scancel reached (Slurm did not answer at all): it may still
 * run. One Slurm refused (an exit status: the job was gone already) is not an
 * error: the agent's stop says whether the engine is gone.
 */
function unended(
  run: Run,
  jobs: readonly PlanJob[],
  s: StopAction,
  term: ReadonlyMap<string, SlurmCall<null> | null>,
  kill: ReadonlyMap<string, SlurmCall<null> | null>,
): { node: string; error: string }[] {
  const host = `slurm host ${run.ctx.config.cluster.slurm?.host ?? ''}`;
  return jobs.flatMap((j) => {
    if (j.replica !== s.replica || j.id === undefined) return [];
    const t = term.get(j.id);
    const k = kill.get(j.id);
    const reached = (c: SlurmCall<null> | null | undefined) => c === null || c === undefined || c.ok || c.exited;
    return reached(t) || reached(k) ? [] : [{ node: host, error: `scancel ${j.id} (${j.name}): ${k?.ok === false ? k.error : 'failed'}` }];
  });
}

/** Jobs mode's starts: one sbatch per rank, rank 0 first; a replica with a rank Slurm refused has its other jobs cancelled. */
async function runJobStarts(run: Run, ranks: ReadonlyMap<string, NodeStart[]>, starts: StartAction[]): Promise<void> {
  const { config, transport } = run.ctx;
  for (const a of starts) {
    const list = ranks.get(a.replica);
    if (!list) continue;
    const submitted: { node: string; id: string }[] = [];
    const errors: { node: string; error: string }[] = [];
    let cut = false;
    for (const s of list) {
      const r = await submitRank(config, transport, run.guard, s);
      if (r === null) cut = true;
      else if (r.ok) submitted.push({ node: s.node, id: r.value });
      else errors.push({ node: s.node, error: r.error });
      if (r === null || !r.ok) break;
    }
    const nodes = list.map((s) => s.node);
    // A rank the cut apply never sent: left for the next tick, which sees what did start.
    if (cut && errors.length === 0) continue;
    if (errors.length === 0) {
      run.results.set(resultKey('start', a.replica), {
        op: 'start',
        replica: a.replica,
        model: a.model,
        status: 'ok',
        nodes,
        slurmJobs: submitted.map((x) => x.id),
      });
      continue;
    }
    fail(run, 'start', a.replica, a.model, nodes, errors, a.port);
    // Ranks that were submitted cannot serve without the others: cancelled, so the next tick places the whole replica afresh.
    const rollback = submitted.map((x, rank): PlanJob => ({ op: 'cancel', name: '', replica: a.replica, rank, node: x.node, gpus: 0, id: x.id }));
    await cancelAll(config, transport, run.guard, rollback, 'kill');
  }
}

async function runStarts(run: Run, starts: StartAction[]): Promise<void> {
  const { config, fleet, transport } = run.ctx;
  const ranks = new Map<string, NodeStart[]>();
  for (const a of starts) {
    try {
      ranks.set(a.replica, startRequests(a, config, fleet));
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      fail(
        run,
        'start',
        a.replica,
        a.model,
        a.placement.map((p) => p.node),
        a.placement.map((p) => ({ node: p.node, error })),
      );
    }
  }
  if (run.jobs !== null) return runJobStarts(run, ranks, starts);
  const byNode = await applyOnNodes(batchesOf([...ranks.values()].flat(), []), config, transport, run.guard);
  const rollback: { node: string; replica: string; entry: ReturnType<typeof stopEntry> }[] = [];
  for (const a of starts) {
    const list = ranks.get(a.replica);
    if (!list) continue;
    // A rank the cut apply never sent: the start is left for the next tick, which sees what did start.
    if (list.some((s) => !byNode.has(s.node))) continue;
    const nodes = list.map((s) => s.node);
    const outcome = list.map((s) => ({ node: s.node, r: byNode.get(s.node)?.get(resultKey('start', a.replica)) }));
    const errors = outcome.flatMap(({ node, r }) => (r && r.ok ? [] : [{ node, error: r ? r.error : 'no result' }]));
    if (errors.length === 0) {
      run.results.set(resultKey('start', a.replica), { op: 'start', replica: a.replica, model: a.model, status: 'ok', nodes });
      continue;
    }
    fail(run, 'start', a.replica, a.model, nodes, errors, a.port);
    // Ranks that did start cannot serve without the others: take them down
    // so the next tick places the whole replica afresh.
    for (const o of outcome) if (o.r?.ok) rollback.push({ node: o.node, replica: a.replica, entry: stopEntry(a, fleet) });
  }
  if (rollback.length > 0) await applyOnNodes(batchesOf([], rollback), config, transport, run.guard);
}

/** Push the table to every router; the names of those that did not take it. */
async function pushAll(run: Run, leaving: ReadonlySet<string>): Promise<string[]> {
  const { config, fleet, transport } = run.ctx;
  if (config.cluster.routers.length === 0) return [];
  // A cut apply pushes no table: every router counts as not having taken it, so no stop that needs it goes ahead.
  if (run.guard.stop() !== null) return config.cluster.routers.map((r) => r.name);
  const current = currentTables(run.ctx.routers);
  const ejected = currentEjections(run.ctx.routers);
  const pushed = await pushTables(
    (router) => endpointTable(config, fleet, leaving, current.get(router) ?? null, ejected.get(router)),
    config,
    transport,
    run.guard,
  );
  for (const r of pushed.results) run.tables.set(r.router, r);
  run.failures.push(...pushed.failures);
  return pushed.failures.map((f) => f.host);
}

function defer(run: Run, s: StopAction, why: { waitingFor: string[]; reason?: string }): void {
  run.results.set(resultKey('stop', s.replica), {
    op: 'stop',
    replica: s.replica,
    model: s.model,
    status: 'deferred',
    nodes: s.placement.map((p) => p.node),
    ...why,
  });
}

/** Whether the routers may list it now: running, and not held out of the tables already (draining, failing its check). */
function inTables(run: Run, s: StopAction): boolean {
  // The tables list the replica where it runs of record, never a duplicate's copy.
  if (s.duplicate) return false;
  const r = run.ctx.fleet.replicaById.get(s.replica);
  return r !== undefined && serving(r) && !heldOut(r);
}

/**
 * The stops that may go now; the others wait, as a router that did not take
 * the table may still list them. A drain goes ahead all the same: it stops
 * nothing, and its timeout must run while a router is silent (a silent router
 * counts as still having requests in flight until then).
 */
function holdForRouters(run: Run, stops: StopAction[], refused: string[]): StopAction[] {
  if (refused.length === 0) return stops;
  const held = (s: StopAction) => !isDrain(s) && inTables(run, s);
  const reason = `still in the table of router ${refused.join(', ')}, which did not take the new one`;
  for (const s of stops) if (held(s)) defer(run, s, { waitingFor: [], reason });
  return stops.filter((s) => !held(s));
}

export async function executePlan(plan: Plan, ctx: ApplyContext): Promise<ApplyOutcome> {
  // A plan made by the tick lists its jobs; one made elsewhere gets them from the reports alone.
  const jobs = jobsMode(ctx.config)
    ? (plan.slurmJobs ?? planJobs(plan, ctx.config, undefined, (n) => ctx.fleet.nodeByName.get(n)?.report ?? null) ?? [])
    : null;
  const run: Run = { ctx, guard: ctx.guard ?? openGuard(), results: new Map(), failures: [], tables: new Map(), jobs };
  const { starts, freeing, ready, waiting } = scheduleApply(plan, ctx.fleet);
  const isRunning = (id: string) => ctx.fleet.replicaById.get(id)?.state === 'running';
  // A duplicate's stop leaves the replica itself in the tables; a draining
  // replica, or one failing its answer check, is in none whatever this plan does.
  const leaving = new Set([...freeing, ...ready].filter((s) => !s.duplicate).map((s) => s.replica));
  for (const id of heldOutOfTables(ctx.fleet)) leaving.add(id);

  const refusedFirst = freeing.some((s) => !isDrain(s) && inTables(run, s)) ? await pushAll(run, leaving) : [];
  await runStops(run, holdForRouters(run, freeing, refusedFirst));
  await runStarts(run, starts);
  const refused = await pushAll(run, leaving);
  await runStops(run, holdForRouters(run, ready, refused));

  for (const s of waiting) defer(run, s, { waitingFor: s.waitFor.filter((id) => !isRunning(id)) });
  const cut = run.guard.stop();
  const results = plan.actions.map((a): ActionResult => {
    const r = run.results.get(resultKey(a.op, a.replica));
    if (r) return r;
    // An action the cut apply never reached (a step boundary): left for the next tick, which plans it again.
    if (cut !== null)
      return {
        op: a.op,
        replica: a.replica,
        model: a.model,
        status: 'deferred',
        nodes: a.placement.map((p) => p.node),
        waitingFor: [],
        reason: `not sent: ${cut}`,
      };
    // Every action ends in a result (ok, failed or deferred) before this line.
    throw new Error(`no result for ${a.op} ${a.replica}`);
  });
  const count = (op: 'start' | 'stop' | null, status: ActionResult['status']) =>
    results.filter((r) => (op === null || r.op === op) && r.status === status).length;
  const drained = results.filter((r) => r.phase === 'drain' && r.status === 'ok').length;
  return {
    results,
    failures: run.failures,
    routerTables: [...run.tables.values()].sort((a, b) => (a.router < b.router ? -1 : 1)),
    started: count('start', 'ok'),
    stopped: count('stop', 'ok') - drained,
    ...(drained > 0 ? { drained } : {}),
    deferred: count(null, 'deferred'),
    failed: count(null, 'failed'),
  };
}
