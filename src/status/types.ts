// The status report: docs/commands.md status JSON, field for field. Every renderer
// (text, JSON, STATUS.md) reads only this, so the three cannot disagree.

import type { RolloutStage, Unplaceable } from '../types/plan.js';
import type { ReplicaState } from '../types/snapshot.js';

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
  /** Why it failed, when it did and its agent said (absent otherwise). */
  error?: string;
  /** A running replica whose answer check fails now: not routed, counts as down (absent otherwise). */
  check?: { ok: false; error: string };
}

export interface IdleRow {
  replica: string;
  model: string;
  nodes: string[];
  idleSeconds: number;
  idleSince: string;
}

export interface NodeSince {
  node: string;
  /** ISO, or null when unknown. */
  since: string | null;
}

/** GPUs of one node in the `other` bucket: someone else's processes, no llmgw replica. */
export interface OtherGpus {
  node: string;
  gpus: number[];
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
  nodes: { unreachable: NodeSince[]; lost: NodeSince[]; cordoned: { node: string }[]; other?: OtherGpus[] };
  notify: { webhooks: number; warning: string | null };
}
