// Which events a tick owes, and sending them (docs/notifications.md). Detected
// purely from what the tick saw; queued in state.json's outbox with an id;
// sent only once that state is committed, so a kill between a receiver's 200
// and our commit resends the same id, never a new one. What the hooks took
// is committed after (src/notify/outbox.ts).

import type { ApplyOutcome } from '../apply/outcome.js';
import type { Checkout } from '../git/config-repo.js';
import { detectEvents, type NotifyEvent } from '../notify/events.js';
import { deliverOutbox, enqueue } from '../notify/outbox.js';
import type { OutboxKey } from '../notify/outbox-mac.js';
import type { WebhookConfig } from '../types/config.js';
import type { State } from '../types/state.js';
import { commitTick, type CommitOptions, type Committed } from './commit.js';
import type { Generated } from '../store/write.js';
import type { Planned } from './plan.js';

/** The events of a tick that planned (and maybe applied), and the state that records them. */
export function tickEvents(planned: Planned, updated: State, committed: State, outcome: ApplyOutcome): { events: NotifyEvent[]; state: State } {
  return detectEvents(updated, {
    cluster: planned.config.cluster.name,
    fleet: planned.fleet,
    plan: planned.plan,
    applyFailures: [
      ...outcome.failures.map((f) =>
        f.replica === null ? { replica: f.host, node: f.host, error: f.error, router: true as const } : { replica: f.replica, node: f.host, error: f.error },
      ),
      // A start that failed after `agent apply` accepted it, newly seen this tick.
      ...planned.state.startFailures.filter((f) => !committed.startFailures.includes(f)).map((f) => ({ replica: f.replica, node: f.node, error: f.error })),
    ],
    configErrors: null,
    now: planned.now,
    scaled: planned.scaled,
  });
}

/** The state with the tick's events owed to the hooks that want them, sealed with `key`; unchanged when delivery is off. */
export function queueEvents(state: State, events: NotifyEvent[], webhooks: readonly WebhookConfig[], enabled: boolean, key: OutboxKey): State {
  return enabled ? enqueue(state, events, webhooks, key) : state;
}

export interface SendOptions {
  /** Deliver at all (reconcile and run: yes; tests may turn it off). */
  enabled: boolean;
  now: () => Date;
  log: (line: string) => void;
  /** The key the outbox is sealed with (src/notify/outbox-key.ts): entries that do not verify under it are dropped unsent. */
  key: OutboxKey;
  commit: CommitOptions;
  /** The commit message for the record of what was delivered. */
  message: (delivered: number) => string;
}

/**
 * After the tick's commit: send what the committed outbox owes and commit
 * what was taken. Nothing is sent when the tick committed nothing because its
 * lease ran out: the next holder re-observes, detects and sends.
 */
export async function sendCommitted(
  repo: Checkout,
  files: Generated,
  committed: Committed,
  webhooks: readonly WebhookConfig[],
  opts: SendOptions,
): Promise<Committed> {
  if (!opts.enabled || committed.leaseLost || files.state.outbox.length === 0) return committed;
  // deliverOutbox never throws: a webhook down is a logged line (with no URL or secret), never a failed tick.
  const after = await deliverOutbox(files.state, webhooks, { now: opts.now, log: opts.log, key: opts.key });
  if (after === files.state) return committed;
  const delivered = files.state.outbox.length - after.outbox.length;
  const record = await commitTick(repo, { ...files, state: after }, opts.message(delivered), opts.commit);
  // The tick's commit is the one that says what happened to the fleet; the record of deliveries follows it.
  return { ...record, commit: committed.commit ?? record.commit, pushError: record.pushError ?? committed.pushError };
}
