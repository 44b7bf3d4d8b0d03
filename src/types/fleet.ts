// The fleet model: what every number means (docs/placement.md), derived purely from
// (config, snapshot, state, now) by src/fleet. Status, STATUS.md and the planner
// all read this one model, so they cannot disagree.

import type { AgentReport, CheckResult, ReplicaState, RouterObservation, SlurmView, UnreachableReason } from './snapshot.js';
import type { Config, NodeConfig } from './config.js';
import type { PlacementRecord, QuarantineRecord } from './state.js';

export type NodeCondition = 'reachable' | 'unreachable' | 'lost';

/**
 * Each GPU is in exactly one bucket, decided in this order. `other`: healthy,
 * no llmgw replica on it, but compute processes llmgw did not start.
 */
export type GpuBucket = 'unreachable' | 'unhealthy' | 'other' | 'used' | 'cordoned' | 'free';

export interface FleetGpu {
  index: number;
  /** GPU class (docs/config.md derivation). */
  class: string;
  /** Product name as reported (untrusted text: escape before rendering). */
  name: string;
  healthy: boolean;
  bucket: GpuBucket;
  /** The replica holding it, if any. */
  replica: string | null;
  /** Compute processes on it that the agent did not start; 0 when the report does not say (an older agent, a failed query). */
  foreign?: number;
  /** Held by a Slurm job that is not llmgw's (docs/slurm.md): `other` unless a replica holds it; absent: not. */
  slurmHeld?: true;
  /** Its memory as reported (nvidia-smi memory.total); absent when the report does not say. */
  memoryMiB?: number;
}

export interface FleetNode {
  name: string;
  config: NodeConfig;
  fabric: string;
  cordoned: boolean;
  condition: NodeCondition;
  /** ISO, or null when reachable or unknown. */
  unreachableSince: string | null;
  /** The error of the last failed contact, when not reachable. */
  error: string | null;
  /** Its class (docs/status.md), when not reachable; absent or null when reachable. */
  reason?: UnreachableReason | null;
  /** The report the numbers come from: the current one, or the last one for an unreachable or lost node; null if never seen. */
  report: AgentReport | null;
  /** Sorted by index. Empty for a node never seen. */
  gpus: FleetGpu[];
  /** Weights this node holds (its own report, only paths cluster.yaml tells it to look in). */
  holds: ReadonlySet<string>;
  /** Ids of the replicas with a rank here. */
  replicas: string[];
  /** Ports taken by replicas here. */
  usedPorts: ReadonlySet<number>;
  /** The class if this is a free whole node (docs/placement.md), else null. */
  freeWholeClass: string | null;
  /** Set when its report lists more GPUs than it is believed to have; absent otherwise. */
  inventory?: InventoryBound;
  /** What Slurm says of it (docs/slurm.md), with cluster.yaml `slurm:`; absent without. */
  slurm?: FleetSlurm;
}

/**
 * A node as Slurm sees it (docs/slurm.md#the-node-condition-slurm). `condition`
 * set: not placeable, its free GPUs `cordoned`, its replicas left running. GPUs
 * that jobs not llmgw's hold are `other`.
 */
export interface FleetSlurm {
  /** Why Slurm keeps llmgw off the node, in Slurm's words; absent: placeable. */
  condition?: { state: string; reason: string };
  /** GPUs held by Slurm jobs that are not llmgw's. */
  gpusAllocated: number;
  /** Which, by Slurm's index, when Slurm says. */
  gpuIndicesAllocated?: number[];
}

export interface ReplicaRank {
  node: string;
  rank: number;
  gpus: number[];
}

export interface FleetReplica {
  id: string;
  model: string;
  /** Merged over ranks: failed if any failed, else starting if any starting, else running. */
  state: ReplicaState;
  /** Rank 0's, or null when unknown. */
  startedAt: string | null;
  /** null when the agent reported none (started by an older agent or by hand). */
  spec: string | null;
  port: number | null;
  endpoint: string | null;
  /** Sorted by rank. */
  ranks: ReplicaRank[];
  /** Node names in rank order. */
  nodes: string[];
  /** Some rank sits on a lost node: counts as gone. */
  lost: boolean;
  /** Some rank sits on an unreachable (not lost) node. */
  unreachable: boolean;
  /** Known lower bound of unused time in seconds, or null when unknown. */
  idleSeconds: number | null;
  /** ISO time it has been unused since, or null when unknown. */
  idleSince: string | null;
  /** Why it failed (the agent's `error`, rank 0's first), when it did and the agent said. */
  error?: string | null;
  /** Its engine made no progress with requests running since then (the agent's `load.stalledSince`); absent: progressing or unknown. */
  stalledSince?: string;
  /** Ejected by every router that routes it since then (the latest run's start); absent: not. */
  ejectedSince?: string;
  /** Rank 0's last answer check (docs/protocol.md#the-answer-check); null/absent when it has none. */
  check?: CheckResult | null;
  /** Out of the routers' tables and waiting to be stopped (state.json); null/absent otherwise. */
  draining?: DrainMark | null;
}

/** A replica whose stop has begun: out of every router's table, stopped once drained (src/plan/drain.ts). */
export interface DrainMark {
  /** When the drain began (the tick that took it out of the tables). */
  since: string;
  /** Why it is being stopped (the stop's reason when the drain began). */
  reason: string;
  /**
   * The tick time at which every router had taken a table without it; null
   * until then. Only router evidence gathered after this counts as drained.
   */
  outOfTablesAt: string | null;
}

/** Copies of a replica id beyond the one that is the replica (src/fleet/duplicates.ts): stopped by the plan. */
export interface DuplicateCopy {
  replica: string;
  model: string;
  /** This copy's ranks, rank order. */
  ranks: ReplicaRank[];
  /** This copy's nodes, rank order. */
  nodes: string[];
  /** Where the copy that stays runs (its placement of record), rank order. */
  recordNodes: string[];
}

/**
 * One node's copy of a replica id llmgw has no placement of record of
 * (docs/safety.md#records-over-reports): it never started it, so it is never
 * counted, never routed, never a reason to stop anything, and left alone for
 * a person. Its GPUs stay taken (the node uses them).
 */
export interface UnrecordedCopy {
  replica: string;
  /** The model it claims (untrusted text: escape before rendering). */
  model: string;
  node: string;
  rank: number;
  gpus: number[];
  state: ReplicaState;
  /** The port it reports; absent when it names none. */
  port?: number;
}

/**
 * A node whose report lists more GPUs than it is believed to have
 * (docs/placement.md#inventory): placed with the first `believed` GPUs by index.
 */
export interface InventoryBound {
  /** GPUs the report lists. */
  reported: number;
  /** GPUs the node is placed with. */
  believed: number;
  /** Where `believed` comes from: cluster.yaml `nodes[].gpus`, or the most it reported before (state.json). */
  source: 'declared' | 'best-known';
}

export interface Fleet {
  config: Config;
  /** ISO time used as "now". */
  now: string;
  observedAt: string;
  /** Sorted by name. */
  nodes: FleetNode[];
  nodeByName: ReadonlyMap<string, FleetNode>;
  /** Sorted by id. */
  replicas: FleetReplica[];
  replicaById: ReadonlyMap<string, FleetReplica>;
  /** True when routers are configured and every one answered (idleness can be known). */
  routersAnswered: boolean;
  /**
   * Ids of replicas reported by snapshot nodes that cluster.yaml no longer
   * lists: not part of the fleet, but their ids stay taken (docs/commands.md).
   */
  foreignReplicaIds?: readonly string[];
  /** Copies of replica ids that run in more than one place, by id; the plan stops them. */
  duplicates?: DuplicateCopy[];
  /** Replicas reported with no placement of record, by id then node: left alone (docs/safety.md#records-over-reports); absent: none. */
  unrecorded?: UnrecordedCopy[];
  /** The placements of record (state.json) this fleet was judged with: a projection of it judges the same. */
  records?: Readonly<Record<string, PlacementRecord>>;
  /**
   * The routers as observed (router usage: in flight, served): what a drain and
   * a rollout's hold are judged by. Absent: none observed.
   */
  routers?: readonly RouterObservation[];
  /** GPUs in quarantine after a fatal Xid (state.json and the snapshot), by `node:index`; absent: none. */
  quarantine?: Readonly<Record<string, QuarantineRecord>>;
  /** Slurm's view as observed (docs/slurm.md), with cluster.yaml `slurm:`; absent without: what yield reads. */
  slurm?: SlurmView;
}
