// The status report: docs/commands.md status JSON, field for field. Every renderer
// (text, JSON, STATUS.md) reads only this, so the three cannot disagree.

import type { RolloutStage, Unplaceable } from '../types/plan.js';
import type { ClosedDaysHours } from '../types/gpu-hours.js';
import type { ScalingDecision } from '../types/state.js';
import type { ReplicaState, UnreachableReason } from '../types/snapshot.js';
import type { EndpointWarning } from '../fleet/routes.js';
import type { FitReport } from '../fleet/fit-report.js';
import type { SurviveReport } from '../fleet/survive.js';

export type { EndpointWarning } from '../fleet/routes.js';

export interface CapacityRow {
  class: string;
  total: number;
  used: number;
  free: number;
  unhealthy: number;
  /** Healthy, no llmgw replica, someone else's compute processes on it: neither free nor llmgw's. */
  other: number;
  unreachable: number;
  cordoned: number;
}

export interface FabricRow {
  name: string;
  nodes: number;
  reachable: number;
  /** class -> free whole nodes; every class seen on the fabric's nodes, 0 included. */
  freeWholeNodes: Record<string, number>;
}

export interface HoldingRow {
  fabric: string;
  model: string;
  weights: string;
  held: boolean;
  shared: string[];
  localNodes: string[];
}

export interface ModelRow {
  name: string;
  desired: number;
  running: number;
  starting: number;
  failed: number;
  /** Out of the routers, waiting to be stopped (not counted as running); absent when none. */
  draining?: number;
  /** Its rollout (models.yaml `rollout`) while one is under way or failed; absent otherwise. */
  rollout?: ModelRollout;
  /** Its models.yaml replicas range (docs/status.md); absent for a fixed count. `desired` is the count decided now. */
  scale?: ModelScale;
}

export interface ModelScale {
  min: number;
  max: number;
  /** asleep: at 0, nothing waiting; waking: asked for, nothing running yet; awake otherwise. */
  state: 'asleep' | 'waking' | 'awake';
  /** Requests waiting at the routers for it now. */
  waiting: number;
  /** The last decision that changed its count; null when none yet. */
  last: ScalingDecision | null;
}

export interface ModelRollout {
  spec: string;
  stage: RolloutStage;
  /** `canary 1 of 4 for spec 5f2c9a1e: starting`, `rollout failed for spec 5f2c9a1e: …`. */
  text: string;
}

export interface ReplicaRow {
  id: string;
  model: string;
  nodes: string[];
  /** `draining`: its stop has begun (out of every router's table), it is stopped once drained. */
  state: ReplicaState | 'draining';
  /** -1 when unknown. */
  idleSeconds: number;
  /** null when unknown. */
  idleSince: string | null;
  /** Why it failed, as its agent reports it (untrusted text: escape before rendering); null unless failed with a reason. */
  error: string | null;
  /** A running replica whose answer check fails now: not routed, counts as down (absent otherwise). */
  check?: { ok: false; error: string };
  /** Application Xids (docs/placement.md#quarantined-gpus) the kernel logged on its GPUs in the last report; absent: none. */
  xid?: { node: string; gpu: number; code: number; at: string }[];
}

export interface IdleRow {
  replica: string;
  model: string;
  nodes: string[];
  idleSeconds: number;
  idleSince: string;
}

/** A copy of a replica id running where the replica is not (docs/safety.md#one-replica-id-in-one-place): being stopped. */
export interface DuplicateRow {
  replica: string;
  model: string;
  /** Where this copy runs. */
  nodes: string[];
  /** Where the replica runs of record: the copy that stays. */
  recordNodes: string[];
}

export interface NodeSince {
  node: string;
  /** ISO, or null when unknown. */
  since: string | null;
  /** Why it does not answer, as a class (docs/status.md). */
  reason: UnreachableReason;
  /** The last failed contact's one line (may change from tick to tick: never written into STATUS.md). */
  error: string | null;
}

/** One GPU in the `unhealthy` bucket (docs/placement.md): reachable node, healthy false. */
export interface UnhealthyGpu {
  node: string;
  index: number;
  class: string;
  /** The agent's reason (untrusted text), or null. */
  reason: string | null;
}

/** A running replica that serves nothing: `stalled` (its engine's progress stopped) or `ejected` (by every router that routes it), since `since`. */
export interface StuckReplica {
  replica: string;
  model: string;
  nodes: string[];
  kind: 'stalled' | 'ejected';
  since: string;
}

/** A GPU out of service after a fatal Xid, until `until` or cluster.yaml releases it. */
export interface QuarantinedGpu {
  node: string;
  index: number;
  code: number;
  reason: string;
  since: string;
  until: string;
}

/** One thing an item of "Needs attention" names, linked to its page in the console. */
export interface AttentionSubject {
  /** As shown: a node, `node:index` list, replica id or model name. */
  name: string;
  /** A short qualifier that does not move while the fleet stands still (a reason class, `3 of 4`, a replica's error); null for none. */
  detail: string | null;
  /** The node page it belongs to, if any. */
  node?: string;
  /** The model page it belongs to, if any. */
  model?: string;
}

/**
 * One line of "Needs attention" (src/status/attention.ts): the same item is
 * rendered in the terminal, STATUS.md and the console, so the three say the
 * same thing in the same order.
 */
export interface AttentionItem {
  /** What kind of problem; one of the rules in attention.ts. */
  kind: string;
  /** The headline, plain text (renderers escape it): `2 nodes lost (their replicas are placed elsewhere)`. */
  text: string;
  /** Where, in order; empty when the headline says it all. */
  subjects: AttentionSubject[];
}

/** A node in the condition `slurm`: Slurm's state and flags (`idle+drain`) and its reason, in Slurm's words (docs/slurm.md). */
export interface SlurmNodeRow {
  node: string;
  state: string;
  reason: string;
}

/** GPUs of one node in the `other` bucket: someone else's processes, no llmgw replica. */
export interface OtherGpus {
  node: string;
  gpus: number[];
}

/** A copy of a replica id llmgw has no record of. */
export interface UnrecordedRow {
  replica: string;
  model: string;
  node: string;
  gpus: number[];
  state: string;
  port?: number;
}

/** A node placed with fewer GPUs than its report lists. */
export interface InventoryRow {
  node: string;
  reported: number;
  believed: number;
  /** `declared`: cluster.yaml nodes[].gpus; `best-known`: the most it reported before. */
  source: 'declared' | 'best-known';
}

export interface StatusReport {
  version: 1;
  cluster: string;
  observedAt: string;
  capacity: CapacityRow[];
  fabrics: FabricRow[];
  holdings: HoldingRow[];
  models: ModelRow[];
  replicas: ReplicaRow[];
  unplaceable: Unplaceable[];
  /** The sentence naming the safety rule that blocks the fleet's plan, and its numbers (docs/safety.md); null when none does. */
  blocked: string | null;
  idle: IdleRow[];
  /** `slurm`: the nodes Slurm keeps llmgw off (docs/slurm.md), present with cluster.yaml `slurm:` only. */
  nodes: { unreachable: NodeSince[]; lost: NodeSince[]; cordoned: { node: string }[]; other?: OtherGpus[]; slurm?: SlurmNodeRow[] };
  notify: { webhooks: number; warning: string | null };
  /** Every GPU in the unhealthy bucket, by node and index. */
  unhealthyGpus: UnhealthyGpu[];
  /** Running replicas stalled or ejected by every router that routes them (docs/placement.md#stalled-and-ejected-replicas); absent: none. */
  stuckReplicas?: StuckReplica[];
  /** GPUs quarantined after a fatal Xid (docs/placement.md#quarantined-gpus), by node and index; absent: none. */
  quarantinedGpus?: QuarantinedGpu[];
  /** Copies of replica ids running in a second place, until they are stopped (docs/safety.md#one-replica-id-in-one-place). */
  duplicates: DuplicateRow[];
  /**
   * Replicas a node reports that llmgw never started (no placement of record,
   * docs/safety.md#records-over-reports), one row per node's copy, by replica
   * then node: not counted, not routed, left alone. Absent: none.
   */
  unrecorded?: UnrecordedRow[];
  /** Nodes whose report lists more GPUs than they are believed to have (docs/placement.md#inventory), by node. Absent: none. */
  inventoryBounded?: InventoryRow[];
  /** Each model's fit on every GPU class it may use; null for a model of unknown size (docs/placement.md#will-it-fit). */
  fit?: FitReport;
  /** One sentence per model of unknown size that no node holds, saying how to make its size known. */
  fitWarnings?: string[];
  /** What the loss of each node and each fabric would leave of every model (docs/placement.md#survive). */
  survive?: SurviveReport;
  /** Sentences for the top of STATUS.md and of every plan format: a models.yaml `survive:` this fleet breaks. */
  surviveWarnings?: string[];
  /** What needs attention, most urgent first (docs/status.md). */
  attention: AttentionItem[];
  /**
   * Replicas whose report names an endpoint other than the URL routers get
   * (`http://{host}:{port}` from cluster.yaml, docs/security.md): a
   * misconfigured agent, or a node to look at. Sorted by replica. Added
   * after `attention`, so it is the JSON's last key.
   */
  endpointWarnings: EndpointWarning[];
  /** GPU-hours of the closed UTC days (docs/status.md#gpu-hours), set by the tick; absent before a first closed day. */
  gpuHours?: ClosedDaysHours;
}

/** The report before its attention list is derived from it. */
export type StatusFacts = Omit<StatusReport, 'attention'>;
