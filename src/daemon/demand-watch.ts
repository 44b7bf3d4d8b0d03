// `llmgw run --demand-poll`: between ticks, read every router's usage over the
// tick's kept-open connections (src/gather/usage-poll.ts) and
//   - ask for a tick when requests wait for a model with no routable replica, or
//     a replica is ejected as stalled (demand.ts says when, and when not again);
//   - while such a model has a replica of record starting, ask that node's agent
//     whether it runs, and route it the moment it does (fast-route.ts), under
//     the lease, one at a time with the ticks.
// The config and state.json it judges by are the checkout's as the last tick
// left them, read again after every tick.

import { setTimeout as sleep } from 'node:timers/promises';
import type { HeldLease } from '../git/lease.js';
import { heldFence } from '../git/lease.js';
import type { LeaseRefs } from '../git/config-repo.js';
import { applyGuard } from '../apply/guard.js';
import { pollAgentReport, pollRouterUsage } from '../gather/usage-poll.js';
import { leaseSafetyMs } from '../tick/run.js';
import type { Config } from '../types/config.js';
import type { PlacementRecord } from '../types/state.js';
import type { Transport } from '../types/transport.js';
import { demandConditions, demandTrigger, startingModels } from './demand.js';
import { routeRunning, startingForDemand, type Candidate } from './fast-route.js';
import { every } from './every.js';

export interface DemandWatchOptions {
  intervalMs: number;
  /** Quiet time before a lasting condition triggers again (demand.ts). */
  repeatMs?: number;
  loop: { busy(): boolean; runs(): number; trigger(reason: 'demand'): void };
  /** The committed config and placements of record as the last tick left them; null when the config is invalid. */
  load(): Promise<{ config: Config; placements: Readonly<Record<string, PlacementRecord>> } | null>;
  transport(config: Config): Transport;
  /** The lease's refs: the fence the fast route's tables carry. */
  repo: LeaseRefs;
  /** Run `job` under the lease, between ticks; false when it did not run (a tick runs, or another instance holds the lease). */
  leased(job: (lease: HeldLease) => Promise<void>): Promise<boolean>;
  now: () => Date;
  log: (line: string) => void;
  /**
   * While a replica woken for demand still starts, look at its agent again this
   * many times within one look, `wakeMs` apart, so it is routed within about
   * `wakeMs` of running rather than within a whole interval (default 0: once per look).
   */
  wakeLooks?: number;
  wakeMs?: number;
}

/** How often a look asks a waking replica's agent whether it runs (docs/operations.md#which-trigger-sees-what). */
export const WAKE_LOOK_MS = 500;

export interface DemandWatch {
  /** One look (the timer's; tests call it directly). */
  step(): Promise<void>;
  stop(): Promise<void>;
}

function firstLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n', 1)[0] ?? '';
}

export function demandWatch(opts: Omit<DemandWatchOptions, 'intervalMs'>): DemandWatch['step'] {
  const fire = demandTrigger(opts.repeatMs);
  let loadedAt = -1;
  let ctx: Awaited<ReturnType<DemandWatchOptions['load']>> = null;
  let failing = false;

  async function runningNow(config: Config, transport: Transport, candidates: readonly Candidate[]): Promise<Candidate[]> {
    const nodes = [...new Set(candidates.map((c) => c.node))];
    const running = new Set<string>();
    await Promise.all(
      nodes.map(async (node) => {
        const report = await pollAgentReport(config, transport, node).catch(() => null);
        for (const r of report?.replicas ?? []) if (r.state === 'running' && (r.rank ?? 0) === 0) running.add(r.id);
      }),
    );
    return candidates.filter((c) => running.has(c.replica));
  }

  return async () => {
    const runs = opts.loop.runs();
    if (runs !== loadedAt && !opts.loop.busy()) {
      ctx = await opts.load().catch(() => null);
      loadedAt = runs;
    }
    if (ctx === null || ctx.config.cluster.routers.length === 0) return;
    const { config, placements } = ctx;
    const transport = opts.transport(config);
    const routers = await pollRouterUsage(config, transport);
    const silent = routers.filter((r) => !r.reachable).map((r) => r.name);
    if (silent.length > 0 && !failing) opts.log(`demand: router ${silent.join(', ')} did not answer its usage`);
    failing = silent.length > 0;

    const conditions = demandConditions(routers, (id) => placements[id]?.model);
    const due = fire(conditions, startingModels(placements), opts.now().getTime());
    if (due.length > 0) {
      opts.log(`demand: ${due.map((c) => c.why).join('; ')}: ticking`);
      opts.loop.trigger('demand');
    }

    // A tick in flight routes what runs by itself; a table pushed meanwhile would race it.
    if (opts.loop.busy()) return;
    const candidates = startingForDemand(placements, routers);
    if (candidates.length === 0) return;
    let running = await runningNow(config, transport, candidates);
    // Ask again within this look until it runs; a tick that starts meanwhile routes it itself.
    for (let n = 0; running.length === 0 && n < (opts.wakeLooks ?? 0) && !opts.loop.busy(); n++) {
      await sleep(opts.wakeMs ?? WAKE_LOOK_MS);
      running = await runningNow(config, transport, candidates);
    }
    if (running.length === 0 || opts.loop.busy()) return;
    await opts
      .leased(async (lease) => {
        const guard = applyGuard({ lease: heldFence(opts.repo), expiresAt: () => lease.expiresAt(), safetyMs: leaseSafetyMs(config), now: opts.now });
        const stop = guard.stop();
        if (stop !== null) {
          opts.log(`demand: not routing ${running.map((c) => c.replica).join(', ')}: ${stop}`);
          return;
        }
        const r = await routeRunning(config, transport, routers, running, guard);
        const names = running.map((c) => c.replica).join(', ');
        if (r.routed.length > 0) opts.log(`demand: ${names} running: routed at once by ${r.routed.join(', ')} (the next tick commits it)`);
        for (const f of r.failed) opts.log(`demand: routing ${names} failed at ${f}`);
      })
      .catch((err: unknown) => opts.log(`demand: routing failed: ${firstLine(err)}`));
  };
}

export function startDemandWatch(opts: DemandWatchOptions): DemandWatch {
  // Extra looks fill the interval but one, so a look never runs into the next.
  const look = demandWatch({ wakeLooks: Math.max(0, Math.floor(opts.intervalMs / WAKE_LOOK_MS) - 1), ...opts });
  const timed = every(opts.intervalMs, () => look().catch((err: unknown) => opts.log(`demand: ${firstLine(err)}`)));
  return { step: look, stop: () => timed.stop() };
}
