// Which actions a change causes (docs/commands.md plan --base): the branch's
// plan beside REF's config planned on the very same snapshot, state and time.
// An action REF's plan has too — same op, same replica — is `pending`: drift
// repair, a failed restart, a lost node's replacement, which merging nothing
// would do as well. Everything else is this change's. Where a pending start
// lands may still differ (the change took the node it would have used); it is
// pending all the same, because it happens either way.

import type { Action, Cause, Plan } from '../types/plan.js';

const key = (a: Action) => `${a.op}\u0000${a.replica}`;

/** `plan` with a cause on every action; without a base plan every action is `change`. */
export function attribute(plan: Plan, base: Plan | null): Plan {
  const pending = new Set(base?.actions.map(key) ?? []);
  const actions = plan.actions.map((a): Action => ({ ...a, cause: (pending.has(key(a)) ? 'pending' : 'change') as Cause }));
  return { ...plan, actions };
}

/** An action's cause; one the planner made (no cause set) is this change's. */
export function causeOf(a: Action): Cause {
  return a.cause ?? 'change';
}
