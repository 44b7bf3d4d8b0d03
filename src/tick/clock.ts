// One clock for the tick (docs/safety.md#clocks): times read from the repo were
// written by some reconciler's clock, maybe a wrong one. A time more than
// FUTURE_SLACK_MS in the future of this tick's clock counts as now (with a
// warning), so a tick run a year ahead cannot commit a node that is never lost
// or a drain that never ends; and an outage never starts before the previous
// tick's observedAt (the node answered then), so a tick run a year behind
// cannot make a blip look like a year-long outage.

import { FUTURE_SLACK_MS } from '../git/lease.js';
import type { Snapshot } from '../types/snapshot.js';
import type { State } from '../types/state.js';

/** `t` unless it lies more than the slack past `now`: then `now`, and `warn` names it. */
function clampTime(t: string, now: Date, what: string, warn: (m: string) => void): string {
  const ms = Date.parse(t);
  if (Number.isNaN(ms) || ms - now.getTime() <= FUTURE_SLACK_MS) return t;
  warn(`${what} is ${t}, in the future of this clock (${now.toISOString()}): counted as now`);
  return now.toISOString();
}

function clampRecord(r: Record<string, string>, now: Date, what: string, warn: (m: string) => void): Record<string, string> {
  return Object.fromEntries(Object.entries(r).map(([k, t]) => [k, clampTime(t, now, `${what} of ${k}`, warn)]));
}

/** state.json's times as this tick reads them: the outage starts and ends, drains and rollout holds. */
export function stateOnThisClock(state: State, now: Date, warn: (m: string) => void): State {
  const c = (t: string, what: string) => clampTime(t, now, what, warn);
  const lifecycle = state.lifecycle
    ? {
        draining: Object.fromEntries(
          Object.entries(state.lifecycle.draining).map(([id, d]) => [
            id,
            { ...d, since: c(d.since, `the drain start of ${id}`), outOfTablesAt: d.outOfTablesAt === null ? null : c(d.outOfTablesAt, `the drain of ${id}`) },
          ]),
        ),
        rollouts: Object.fromEntries(
          Object.entries(state.lifecycle.rollouts).map(([m, r]) => [
            m,
            {
              ...r,
              ...(r.holdSince === undefined ? {} : { holdSince: c(r.holdSince, `the rollout hold of ${m}`) }),
              ...(r.failedAt === undefined ? {} : { failedAt: c(r.failedAt, `the rollout failure of ${m}`) }),
            },
          ]),
        ),
      }
    : undefined;
  return {
    ...state,
    unreachableSince: clampRecord(state.unreachableSince, now, 'unreachableSince', warn),
    ...(state.outageEnded ? { outageEnded: clampRecord(state.outageEnded, now, 'the outage end', warn) } : {}),
    ...(lifecycle ? { lifecycle } : {}),
  };
}

/** The committed snapshot's unreachable times as this tick reads them. */
export function previousOnThisClock(previous: Snapshot | null, now: Date, warn: (m: string) => void): Snapshot | null {
  if (previous === null) return null;
  return {
    ...previous,
    nodes: previous.nodes.map((n) =>
      n.reachable || n.unreachableSince === null ? n : { ...n, unreachableSince: clampTime(n.unreachableSince, now, `unreachableSince of ${n.name}`, warn) },
    ),
  };
}

/**
 * An outage that began this tick (the node answered in the previous one)
 * starts no earlier than the previous tick's observedAt: the node was seen then.
 */
export function outagesAfter(previous: Snapshot | null, snapshot: Snapshot): Snapshot {
  if (previous === null) return snapshot;
  const floor = Date.parse(previous.observedAt);
  if (Number.isNaN(floor)) return snapshot;
  const answered = new Set(previous.nodes.filter((n) => n.reachable).map((n) => n.name));
  return {
    ...snapshot,
    nodes: snapshot.nodes.map((n) =>
      !n.reachable && n.unreachableSince !== null && answered.has(n.name) && Date.parse(n.unreachableSince) < floor
        ? { ...n, unreachableSince: previous.observedAt }
        : n,
    ),
  };
}
