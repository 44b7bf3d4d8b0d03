// The apply phase (src/tick/README.md): the only phase that touches the fleet.
// It runs the plan in docs/safety.md's order and says, as data, what took
// effect; the project phase turns exactly that into the fleet it commits.

import { executePlan } from '../apply/executor.js';
import type { ApplyGuard } from '../apply/guard.js';
import type { ApplyOutcome } from '../apply/outcome.js';
import { effectsOf } from '../apply/schedule.js';
import type { Effects } from '../plan/project-fleet.js';
import type { Transport } from '../types/transport.js';
import type { Planned } from './plan.js';

export interface Applied {
  outcome: ApplyOutcome;
  /** The actions whose every node answered ok. */
  effects: Effects;
}

export async function applyTick(planned: Planned, transport: Transport, guard?: ApplyGuard): Promise<Applied> {
  const outcome = await executePlan(planned.plan, {
    config: planned.config,
    fleet: planned.fleet,
    transport,
    routers: planned.snapshot.routers,
    ...(guard ? { guard } : {}),
  });
  return { outcome, effects: effectsOf(planned.plan, outcome) };
}
