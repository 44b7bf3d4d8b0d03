// The status report: docs/commands.md status JSON, field for field. Every renderer
// (text, JSON, STATUS.md) reads only this, so the three cannot disagree.

import type { Unplaceable } from '../types/plan.js';
import type { ReplicaState } from '../types/snapshot.js';
import type { EndpointWarning } from '../fleet/routes.js';

export type { EndpointWarning } from '../fleet/routes.js';

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
  /**
   * Replicas whose report names an endpoint other than the URL routers get
   * (`http://{host}:{port}` from cluster.yaml, docs/security.md): a
   * misconfigured agent, or a node to look at. Sorted by replica.
   */
  endpointWarnings: EndpointWarning[];
}
