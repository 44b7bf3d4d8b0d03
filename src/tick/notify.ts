// Which events a tick owes, and sending them (docs/notifications.md). Detected
// purely from what the tick saw; sent by the webhooks; an event no webhook took
// is left open in state.json, so the next tick sends it again.

import type { ApplyOutcome } from '../apply/outcome.js';
import { detectEvents, keepUndelivered, type NotifyEvent } from '../notify/events.js';
import { deliver } from '../notify/webhook.js';
import type { WebhookConfig } from '../types/config.js';
import type { State } from '../types/state.js';
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
  });
}

export interface SendOptions {
  /** Deliver at all (reconcile and run: yes; tests may turn it off). */
  enabled: boolean;
  /** The lease ran out: another holder will detect and send these, so this one sends nothing. */
  leaseExpired: boolean;
  log: (line: string) => void;
}

/** Sends the events; resolves with those no webhook took, to be sent again next tick. */
export async function sendEvents(webhooks: readonly WebhookConfig[], events: NotifyEvent[], opts: SendOptions): Promise<NotifyEvent[]> {
  if (!opts.enabled || events.length === 0 || webhooks.length === 0) return [];
  if (opts.leaseExpired) return [];
  // deliver never throws: a webhook down is a logged line (with no URL or secret), never a failed tick.
  const { undelivered } = await deliver([...webhooks], events, { log: (line) => opts.log(`notify: ${line}`) });
  return undelivered;
}

export { keepUndelivered };
