// The fleet model (docs/placement.md): one pure function of (config, snapshot, state,
// now) that every reader — status, STATUS.md, the planner — shares, so no two
// of them can count a GPU differently. No fs, no clock: `now` is an argument.

import { gpuClassOf } from '../config/gpu-class.js';
import type { Config, NodeConfig } from '../types/config.js';
import type { DrainMark, Fleet, FleetNode, FleetReplica, InventoryBound } from '../types/fleet.js';
import type { NodeObservation, RouterObservation, SlurmView, Snapshot } from '../types/snapshot.js';
import type { PlacementRecord, QuarantineRecord, State } from '../types/state.js';
import { fleetGpus, freeWholeClassOf } from './gpus.js';
import { forEachHolding } from './holdings.js';
import { answeredRouters, idleness, type Idleness } from './idle.js';
import { drainMarkOf } from './lifecycle.js';
import { observedCondition, type ObservedCondition } from './node-condition.js';
import { mergeReplicas, replicaPort } from './replicas.js';
import { quarantinesOf, withQuarantine } from './quarantine.js';
import { ejectedSince } from './liveness.js';
import { seedRecords } from './records.js';
import { boundedReport } from './inventory.js';
import { fleetSlurmOf, slurmViewAt } from './slurm.js';

function byName<T extends { name: string }>(a: T, b: T): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** A memo over the product names seen: 16,000 GPUs usually carry a handful of names. */
export function classifier(config: Config): (productName: string) => string {
  const memo = new Map<string, string>();
  return (name) => {
    let cls = memo.get(name);
    if (cls === undefined) memo.set(name, (cls = gpuClassOf(name, config.cluster.gpuClasses)));
    return cls;
  };
}

/**
 * One node of the model from its condition and the report its numbers come
 * from. The projection of a plan (src/plan/project-fleet.ts) derives a node
 * through this same function, so a node it changed and a node rebuilt from the
 * snapshot it commits cannot be counted differently.
 */
export function fleetNode(nc: NodeConfig, seen: ObservedCondition, classOf: (productName: string) => string, inventory?: InventoryBound): FleetNode {
  const report = seen.report;
  const gpus = fleetGpus(report, seen.condition, nc.cordon, classOf, seen.slurm);
  const replicaIds = report ? [...new Set(report.replicas.map((r) => r.id))].sort() : [];
  const holds = new Set<string>();
  forEachHolding(report, nc.storage, (weights) => holds.add(weights));
  const usedPorts = new Set<number>();
  for (const r of report?.replicas ?? []) {
    const port = replicaPort(r);
    if (port !== null) usedPorts.add(port);
  }
  return {
    name: nc.name,
    config: nc,
    fabric: nc.fabric,
    cordoned: nc.cordon,
    condition: seen.condition,
    unreachableSince: seen.unreachableSince,
    error: seen.error,
    reason: seen.reason,
    report,
    gpus,
    holds,
    replicas: replicaIds,
    usedPorts,
    // A node Slurm keeps llmgw off is no free whole node, as a cordoned one is not.
    freeWholeClass: freeWholeClassOf(seen.condition, nc.cordon || seen.slurm?.condition !== undefined, replicaIds.length, gpus),
    ...(inventory === undefined ? {} : { inventory }),
    ...(seen.slurm === undefined ? {} : { slurm: seen.slurm }),
  };
}

export interface FleetFrame {
  now: string;
  observedAt: string;
  routersAnswered: boolean;
  foreignReplicaIds: readonly string[];
  /** A running, not lost replica's idleness (docs/placement.md), or null when unknown. */
  idle: (r: FleetReplica) => Idleness | null;
  /**
   * Placements of record (state.json): which ids are llmgw's, which copy of a
   * duplicated id stays, which port routers get. Absent: none kept yet, so
   * they are seeded from these very reports (a snapshot read from a file).
   */
  records?: Readonly<Record<string, PlacementRecord>>;
  /** The routers as observed; absent: none. */
  routers?: readonly RouterObservation[];
  /** A replica's drain (state.json), or null; absent: none drains. */
  draining?: (id: string) => DrainMark | null;
  /** The GPUs in quarantine (src/fleet/quarantine.ts), by `node:index`; absent: none. */
  quarantine?: Readonly<Record<string, QuarantineRecord>>;
  /** Slurm's view as it holds now (src/fleet/slurm.ts); absent without cluster.yaml `slurm:`. */
  slurm?: SlurmView;
}

/** The fleet from its nodes (sorted by name): replicas merged across nodes, idleness filled in. */
export function assembleFleet(config: Config, nodes: FleetNode[], frame: FleetFrame): Fleet {
  const records = frame.records ?? seedRecords(nodes);
  const { replicas, duplicates, unrecorded } = mergeReplicas(nodes, {
    record: (id) => (Object.hasOwn(records, id) ? records[id] : undefined),
  });
  // Routes use the port of record (docs/safety.md#records-over-reports), not the one a node reports.
  for (const r of replicas) {
    const port = records[r.id]?.port;
    if (port !== undefined) r.port = port;
  }
  if (frame.draining) for (const r of replicas) r.draining = frame.draining(r.id);
  for (const r of replicas) {
    const since = r.state === 'running' && !r.lost ? ejectedSince(r.id, r.model, frame.routers ?? []) : null;
    if (since !== null) r.ejectedSince = since;
  }
  for (const r of replicas) {
    // Lost replicas count as gone: no idleness to report for what is not there.
    if (r.state !== 'running' || r.lost) continue;
    const idle = frame.idle(r);
    if (idle) {
      r.idleSeconds = idle.idleSeconds;
      r.idleSince = idle.idleSince;
    }
  }
  return {
    config,
    now: frame.now,
    observedAt: frame.observedAt,
    nodes,
    nodeByName: new Map(nodes.map((n) => [n.name, n])),
    replicas,
    replicaById: new Map(replicas.map((r) => [r.id, r])),
    routersAnswered: frame.routersAnswered,
    foreignReplicaIds: frame.foreignReplicaIds,
    duplicates,
    ...(unrecorded.length === 0 ? {} : { unrecorded }),
    records,
    routers: frame.routers ?? [],
    quarantine: frame.quarantine ?? {},
    ...(frame.slurm === undefined ? {} : { slurm: frame.slurm }),
  };
}

export function buildFleet(config: Config, snapshot: Snapshot, state: State, now: string): Fleet {
  const nowMs = Date.parse(now);
  const observed = new Map<string, NodeObservation>(snapshot.nodes.map((n) => [n.name, n]));
  const classOf = classifier(config);
  const lostAfterMs = config.cluster.lostAfterMs;
  // From the snapshot as well as state.json, so `plan --observed` and `status` see a fatal Xid too.
  const quarantine = quarantinesOf(state.quarantine, snapshot, config.cluster, nowMs);
  // Without cluster.yaml `slurm:` a view in the snapshot changes nothing (docs/slurm.md).
  const slurm = config.cluster.slurm === undefined ? undefined : slurmViewAt(snapshot.slurm, lostAfterMs, nowMs);

  const nodes: FleetNode[] = [...config.cluster.nodes].sort(byName).map((nc) => {
    const remembered = Object.hasOwn(state.unreachableSince, nc.name) ? state.unreachableSince[nc.name] : undefined;
    const seen = observedCondition(observed.get(nc.name), remembered, nowMs, lostAfterMs);
    const bounded = boundedReport(seen.report, nc.gpus, state.inventory?.[nc.name]);
    const slurmSeen = fleetSlurmOf(config.cluster, slurm, nc.name, new Date(nowMs));
    return fleetNode(
      nc,
      { ...seen, report: withQuarantine(bounded.report, nc.name, quarantine), ...(slurmSeen === undefined ? {} : { slurm: slurmSeen }) },
      classOf,
      bounded.bound,
    );
  });

  const configured = new Set(config.cluster.nodes.map((n) => n.name));
  const foreign = new Set<string>();
  for (const n of snapshot.nodes) {
    if (configured.has(n.name)) continue;
    const report = n.reachable ? n.report : n.lastReport;
    for (const r of report?.replicas ?? []) foreign.add(r.id);
  }
  const usages = answeredRouters(config.cluster.routers, snapshot.routers);
  return assembleFleet(config, nodes, {
    now,
    observedAt: snapshot.observedAt,
    routersAnswered: usages !== null,
    foreignReplicaIds: [...foreign].sort(),
    idle: (r) => idleness(r.id, r.startedAt, usages, nowMs),
    records: state.placements,
    routers: snapshot.routers,
    draining: drainMarkOf(state),
    quarantine,
    ...(slurm === undefined ? {} : { slurm }),
  });
}
