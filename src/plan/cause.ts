// Which actions a change causes (docs/commands.md plan --base): the branch's
// plan beside REF's config planned on the very same snapshot, state and time.
// An action REF's plan has too — same op, same replica — is `pending`: drift
// repair, a failed restart, a lost node's replacement, which merging nothing
// would do as well. Everything else is this change's. Where a pending start
// lands may still differ (the change took the node it would have used); it is
// pending all the same, because it happens either way — unless the change
// gives its model a new spec: then REF's start would run another command, and
// this one is the change's.

import type { Action, Cause, Plan } from '../types/plan.js';

const key = (a: Action) => `${a.op}\u0000${a.replica}`;

/**
 * `plan` with a cause on every action; without a base plan every action is
 * `change`. `respecced`: models whose spec the change makes new or different.
 */
export function attribute(plan: Plan, base: Plan | null, respecced: ReadonlySet<string> = new Set()): Plan {
  const pending = new Set(base?.actions.map(key) ?? []);
  const cause = (a: Action): Cause => (pending.has(key(a)) && !(a.op === 'start' && respecced.has(a.model)) ? 'pending' : 'change');
  return { ...plan, actions: plan.actions.map((a): Action => ({ ...a, cause: cause(a) })) };
}

/** An action's cause; one the planner made (no cause set) is this change's. */
export function causeOf(a: Action): Cause {
  return a.cause ?? 'change';
}
