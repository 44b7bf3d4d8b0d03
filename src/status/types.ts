// The status report: docs/commands.md status JSON, field for field. Every renderer
// (text, JSON, STATUS.md) reads only this, so the three cannot disagree.

import type { Unplaceable } from '../types/plan.js';
import type { ReplicaState } from '../types/snapshot.js';

export interface CapacityRow {
  class: string;
  total: number;
  used: number;
  free: number;
  unhealthy: number;
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
}

export interface ReplicaRow {
  id: string;
  model: string;
  nodes: string[];
  state: ReplicaState;
  /** -1 when unknown. */
  idleSeconds: number;
  /** null when unknown. */
  idleSince: string | null;
}

export interface IdleRow {
  replica: string;
  model: string;
  nodes: string[];
  idleSeconds: number;
  idleSince: string;
}

/** A copy of a replica id running where the replica is not (docs/notes/crash.md): being stopped. */
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
  nodes: { unreachable: NodeSince[]; lost: NodeSince[]; cordoned: { node: string }[] };
  notify: { webhooks: number; warning: string | null };
  /** Copies of replica ids running in a second place, until they are stopped (docs/notes/crash.md). */
  duplicates: DuplicateRow[];
}
