// rollout.failed (docs/safety.md#rollouts): once per failed spec. It opens when
// a plan says a model's rollout failed, and stays open (no resend) while that
// spec stays rolled back; models.yaml changing the spec closes it, so the next
// spec's failure is a new transition.

import type { EventName } from '../types/config.js';
import type { Plan } from '../types/plan.js';

type Open = (event: EventName, subject: string, text: string, details: Record<string, unknown>) => void;
type Close = (event: EventName, subject: string) => void;

export function rolloutEvents(plan: Plan, open: Open, close: Close, openSubjects: (event: EventName) => string[], esc: (s: string) => string): void {
  const failed = new Map((plan.rollouts ?? []).filter((r) => r.stage === 'failed').map((r) => [r.model, r]));
  for (const r of failed.values()) {
    const reason = r.next.reason ?? 'its canaries failed';
    open(
      'rollout.failed',
      r.model,
      `Rollout of ${esc(r.model)} to spec ${esc(r.spec)} failed: ${esc(reason)}. The old spec keeps serving; this spec is not tried again until models.yaml changes it.`,
      {
        model: r.model,
        spec: r.spec,
        reason,
      },
    );
  }
  for (const m of openSubjects('rollout.failed')) if (!failed.has(m)) close('rollout.failed', m);
}
