// How the answer check gates a replica's state (docs/protocol.md#the-answer-check). Pure: the
// question is asked in report.ts. Runs after deriveState, which has already
// judged the process and its health.
//
//   healthy, never passed  → starting; failed once timeoutSeconds have passed
//                            since the first healthy answer with no matching one
//   passed once            → whatever health says (running), with the last
//                            check reported: a failing check is said, not acted on
//                            (the reconciler decides what it means)

import type { CheckResult } from '../types/snapshot.js';
import { fail, type Derived } from './replica-state.js';
import type { ReplicaRecord } from './replica-store.js';

/** Whether this report asks the replica: only a healthy one, every report until it passed, then once per interval. */
export function checkDue(rec: ReplicaRecord, derived: Derived, healthyNow: boolean, now: Date, intervalMs: number): boolean {
  if (rec.check === undefined || derived.state === 'failed' || !healthyNow) return false;
  const h = derived.health;
  if (h.checkPassedAt === undefined || h.check === undefined) return true;
  return now.getTime() - Date.parse(h.check.at) >= intervalMs;
}

function joined(...parts: (string | undefined)[]): string | undefined {
  const present = parts.filter((p): p is string => p !== undefined);
  return present.length === 0 ? undefined : present.join('; ');
}

export function gateOnCheck(rec: ReplicaRecord, derived: Derived, attempt: CheckResult | null, now: Date): Derived {
  const check = rec.check;
  if (check === undefined || derived.state === 'failed') return derived;
  let h = derived.health;
  if (attempt !== null) {
    h = { ...h, check: attempt };
    if (attempt.ok && h.checkPassedAt === undefined) h.checkPassedAt = attempt.at;
  }
  if (h.checkPassedAt !== undefined) {
    const failing = h.check?.ok === false ? `replica ${rec.replica} answer check failing: ${h.check.error ?? 'no match'}` : undefined;
    return { state: derived.state, health: h, warning: joined(derived.warning, failing) };
  }
  if (h.firstHealthyAt !== undefined && now.getTime() - Date.parse(h.firstHealthyAt) >= check.timeoutSeconds * 1000) {
    const why = h.check?.error ?? `no answer asked within ${check.timeoutSeconds} s of the first healthy answer`;
    return fail(rec, h, now, `answer check failed: ${why}`);
  }
  return { state: 'starting', health: h, ...(derived.warning === undefined ? {} : { warning: derived.warning }) };
}
