// .llmgw/state.json: the little that must survive a restart (docs/config.md).
// Everything else is re-observed each tick.

import type { EventName } from './config.js';
import type { ReplicaState } from './snapshot.js';
import type { RolloutRecord } from './plan.js';

export interface StartFailure {
  model: string;
  node: string;
  replica: string;
  /** ISO time of the failure. */
  at: string;
  error: string;
  /** The port it was to listen on; placement leaves it aside on that node for 30 minutes (a port something else holds). Absent: unknown. */
  port?: number;
}

/** A GPU out of service after a fatal Xid: unhealthy and never placed on until `until`, or until cluster.yaml releases it. */
export interface QuarantineRecord {
  node: string;
  index: number;
  /** The Xid code. */
  code: number;
  reason: string;
  /** ISO: when the Xid was logged. */
  since: string;
  /** ISO: since + cluster.yaml `defaults.quarantine`. */
  until: string;
}

/** One rank of a replica where state.json last knew it. */
export interface RecordedRank {
  node: string;
  rank: number;
  gpus: number[];
}

/**
 * Where a replica id runs, as the last tick left it: its placement of record
 * (docs/protocol.md#the-snapshot). It keeps an unreachable node's replicas — their ids,
 * their count toward `replicas` — known when .llmgw/observed.json is missing
 * or unreadable, and it decides which copy of an id seen in two places is
 * the one that stays.
 */
export interface PlacementRecord {
  model: string;
  state: ReplicaState;
  /** Rank order. */
  ranks: RecordedRank[];
  port?: number;
  spec?: string;
}

/** A notification (docs/notifications.md), as src/notify/events.ts derives it and a webhook receives it. */
export interface NotifyEvent {
  event: EventName;
  cluster: string;
  time: string;
  subject: string;
  /** One human sentence; Slack and Mattermost hooks show it as it is. */
  text: string;
  details: Record<string, unknown>;
}

/** An event owed to webhooks: its id is fixed when it is first committed, so every retry and restart sends the same one. */
export interface OutboxEntry {
  /** `webhook-id`: the same for every attempt, across ticks and restarts. */
  id: string;
  event: NotifyEvent;
  /** Keys of the hooks (src/notify/hook-key.ts) that have not taken it yet. */
  hooks: string[];
  /** HMAC-SHA256 of the rest (src/notify/outbox-mac.ts); absent in an older state.json, whose entries are then not trusted. */
  mac?: string;
}

export interface State {
  version: 1;
  /** node -> ISO time it was first seen unreachable in the current outage. */
  unreachableSince: Record<string, string>;
  /**
   * node -> ISO time its last outage ended (the tick that saw it answer again),
   * kept for lostAfter after that: its replicas are the first surplus to stop
   * (docs/placement.md#2-free-first). Absent: none.
   */
  outageEnded?: Record<string, string>;
  /** Recent start failures; the planner avoids (model, node) for 30 minutes. */
  startFailures: StartFailure[];
  /** `node:index` -> a GPU quarantined by a fatal Xid (docs/placement.md#quarantined-gpus); absent: none. */
  quarantine?: Record<string, QuarantineRecord>;
  /**
   * Conditions already notified, so each event fires once per transition and a
   * restarted reconciler does not resend. Key: `<event>/<subject>` of the open
   * condition (e.g. `node.lost/gpu-a02`), value: ISO time it opened.
   */
  notified: Record<string, string>;
  /** Models that have had a running replica (a new model that never ran is not "down"). */
  everRunning: string[];
  /** Replica id -> its placement of record. */
  placements: Record<string, PlacementRecord>;
  /** Events committed but not yet taken by every hook that wants them, oldest first. */
  outbox: OutboxEntry[];
  /** Drains and rollouts under way (docs/protocol.md#the-snapshot); absent when there are none. */
  lifecycle?: LifecycleState;
  /** The highest lease epoch issued (docs/safety.md#fencing): a lease ref created afresh starts above it. Absent: 0. */
  leaseEpoch?: number;
  /** model -> the replica count decided within its models.yaml range (src/plan/scale.ts); absent: none ranged. */
  scaling?: Record<string, ScalingRecord>;
}

/** One ranged model's decided count and its last decision (docs/config.md#on-demand-models). */
export interface ScalingRecord {
  count: number;
  /** When it last scaled up: no scale-down within scaleDownAfter of it. Absent: never. */
  lastUpAt?: string;
  /** The last decision that changed the count. Absent: none yet. */
  last?: ScalingDecision;
}

export interface ScalingDecision {
  at: string;
  from: number;
  to: number;
  /** Its cause, as the commit message says it: `12 waiting at rt-a`, `qwen-7b-0 idle 10m`. */
  reason: string;
}

/** What a stop that drains, and a rollout, must remember from one tick to the next. */
export interface LifecycleState {
  /** replica id -> its drain: out of the routers' tables, stopped once drained or past drainTimeout. */
  draining: Record<string, DrainEntry>;
  /** model -> its rollout. */
  rollouts: Record<string, RolloutRecord>;
}

export interface DrainEntry {
  /** When the drain began. */
  since: string;
  /** The stop's reason. */
  reason: string;
  /** When every router first took a table without it; null until then. */
  outOfTablesAt: string | null;
}

export function emptyState(): State {
  return { version: 1, unreachableSince: {}, startFailures: [], notified: {}, everRunning: [], placements: {}, outbox: [] };
}
