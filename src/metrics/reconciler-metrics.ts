// The reconciler's Prometheus metrics (docs/operations.md), kept in a registry
// of their own and set from what each tick did and the fleet it left. prom-client
// writes the exposition format; nothing here formats text.
//
// The fleet gauges are replaced whole after each tick (reset, then set), so a
// model removed from models.yaml or a GPU class no longer seen disappears
// instead of keeping its last value forever.

import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { TickResult } from '../tick/result.js';
import type { StatusReport } from '../status/types.js';
import { registerGpuSeconds } from '../ledger/gpu-seconds.js';
import { gpuBuckets, nodeStates, replicaStates, stuckCounts, stuckSince } from './fleet-gauges.js';

/** A tick as the metrics see it. */
export interface TickObservation {
  startedAt: Date;
  finishedAt: Date;
  result: TickResult;
  /**
   * The fleet as the tick left it, as status JSON (docs/commands.md); null when
   * there is none (the config on the branch is invalid): the fleet gauges then
   * keep what the last valid tick saw.
   */
  status: StatusReport | null;
}

export interface ReconcilerMetrics {
  readonly registry: Registry;
  recordTick(t: TickObservation): void;
  /** This instance took or renewed the lease until `expiresAt` (undefined: no remote to share, held for good). */
  leaseTaken(expiresAt: Date | undefined): void;
  /** This instance let the lease go (it stops). */
  leaseReleased(): void;
}

/** Ticks take from a second (a small steady fleet) to minutes (a big apply over SSH). */
const TICK_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

export function createReconcilerMetrics(opts: { now?: () => Date } = {}): ReconcilerMetrics {
  const now = opts.now ?? (() => new Date());
  const registry = new Registry();
  const registers = [registry];

  const tickDuration = new Histogram({
    name: 'llmgw_tick_duration_seconds',
    help: 'How long each reconcile tick took, from pull to push.',
    buckets: TICK_BUCKETS,
    registers,
  });
  const lastTick = new Gauge({
    name: 'llmgw_last_tick_timestamp_seconds',
    help: 'When the last tick finished (Unix time); stale means the reconciler is stuck or standing by.',
    registers,
  });
  const nodes = new Gauge({
    name: 'llmgw_nodes',
    help: 'Nodes of cluster.yaml by state, each counted once: lost, unreachable, cordoned (reachable), reachable.',
    labelNames: ['state'],
    registers,
  });
  const gpus = new Gauge({
    name: 'llmgw_gpus',
    help: 'GPUs by class and bucket (free, used, unhealthy, unreachable, cordoned, ...); each GPU in exactly one bucket.',
    labelNames: ['class', 'bucket'],
    registers,
  });
  const replicas = new Gauge({
    name: 'llmgw_replicas',
    help: 'Replicas by model and state as the last tick left them.',
    labelNames: ['model', 'state'],
    registers,
  });
  const desired = new Gauge({
    name: 'llmgw_replicas_desired',
    help: 'Replicas models.yaml asks for, by model.',
    labelNames: ['model'],
    registers,
  });
  const stuck = new Gauge({
    name: 'llmgw_replicas_stuck',
    help: 'Running replicas that serve nothing, by model and kind: stalled (no engine progress with requests running) or ejected (by every router that routes them).',
    labelNames: ['model', 'kind'],
    registers,
  });
  const stuckSinceGauge = new Gauge({
    name: 'llmgw_replica_stuck_since_timestamp_seconds',
    help: 'Since when each stalled or ejected replica has served nothing (Unix time); only such replicas have a series.',
    labelNames: ['model', 'replica', 'kind'],
    registers,
  });
  const actions = new Counter({
    name: 'llmgw_actions_total',
    help: 'Plan actions carried out without error, by operation.',
    labelNames: ['op'],
    registers,
  });
  const applyFailures = new Counter({
    name: 'llmgw_apply_failures_total',
    help: 'Failures while applying plans: one per host that refused or did not answer a start, stop or router table.',
    registers,
  });
  const configValid = new Gauge({
    name: 'llmgw_config_valid',
    help: '1 when the last tick found the config on the branch valid, 0 when nothing could be applied because it is not.',
    registers,
  });
  const planBlocked = new Gauge({
    name: 'llmgw_plan_blocked',
    help: '1 when the last plan was blocked by a safety rule and not applied.',
    registers,
  });

  let lease: { held: boolean; expiresAt?: Date } = { held: false };
  new Gauge({
    name: 'llmgw_lease_held',
    help: '1 while this instance holds the reconcile lease (refs/llmgw/lease) and may apply; 0 when it stands by.',
    registers,
    // Judged at scrape time: a lease not renewed has run out by then, whatever the last tick said.
    collect() {
      this.set(lease.held && (lease.expiresAt === undefined || lease.expiresAt.getTime() > now().getTime()) ? 1 : 0);
    },
  });

  // The ledger's rule counted live (src/ledger/gpu-seconds.ts): each interval at the earlier tick's GPUs.
  const gpuSeconds = registerGpuSeconds(registry);

  // Series that exist from the start, so rate() and alerts see a 0 rather than nothing.
  for (const op of ['start', 'stop']) actions.labels(op).inc(0);
  applyFailures.inc(0);

  function setFleet(status: StatusReport): void {
    nodes.reset();
    for (const [state, n] of Object.entries(nodeStates(status))) nodes.labels(state).set(n);
    gpus.reset();
    for (const g of gpuBuckets(status)) gpus.labels(g.class, g.bucket).set(g.count);
    replicas.reset();
    for (const r of replicaStates(status)) replicas.labels(r.model, r.state).set(r.count);
    desired.reset();
    for (const m of status.models) desired.labels(m.name).set(m.desired);
    setStuck(status);
  }

  function setStuck(status: StatusReport): void {
    stuck.reset();
    for (const c of stuckCounts(status)) stuck.labels(c.model, c.kind).set(c.count);
    stuckSinceGauge.reset();
    for (const r of stuckSince(status)) stuckSinceGauge.labels(r.model, r.replica, r.kind).set(r.since);
  }

  return {
    registry,
    recordTick(t) {
      tickDuration.observe(Math.max(0, (t.finishedAt.getTime() - t.startedAt.getTime()) / 1000));
      lastTick.set(t.finishedAt.getTime() / 1000);
      configValid.set(t.result.configInvalid ? 0 : 1);
      planBlocked.set(t.result.blocked !== null ? 1 : 0);
      for (const r of t.result.outcome?.results ?? []) if (r.status === 'ok') actions.labels(r.op).inc();
      applyFailures.inc(t.result.outcome?.failures.length ?? 0);
      if (t.status) setFleet(t.status);
      if (t.result.gpus) gpuSeconds.observe(new Date(t.result.gpus.at), t.result.gpus.counts);
    },
    leaseTaken(expiresAt) {
      lease = { held: true, expiresAt };
    },
    leaseReleased() {
      lease = { held: false };
    },
  };
}
