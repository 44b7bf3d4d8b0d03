// The fleet as an apply leaves it (shared by the tick and `llmgw apply`): the
// observation projected by the actions that succeeded — a started replica
// `starting`, a stopped one gone, failed and waiting ones as seen. STATUS.md
// and .llmgw/observed.json are written from it, so a PR's `llmgw plan
// --observed` does not propose again what was just done.

import type { ApplyOutcome } from '../apply/outcome.js';
import { buildFleet } from '../fleet/index.js';
import { projectSnapshot } from '../plan/project-snapshot.js';
import { renderStatusMarkdown, summarize } from '../status/index.js';
import type { Config } from '../types/config.js';
import type { Fleet } from '../types/fleet.js';
import type { Plan } from '../types/plan.js';
import type { Snapshot } from '../types/snapshot.js';
import type { State } from '../types/state.js';

export interface AfterApply {
  snapshot: Snapshot;
  fleet: Fleet;
  status: string;
}

export function afterApply(input: {
  config: Config;
  snapshot: Snapshot;
  fleet: Fleet;
  plan: Plan;
  outcome: ApplyOutcome;
  state: State;
  now: string;
}): AfterApply {
  const { config, plan, outcome } = input;
  const done = new Set(outcome.results.filter((r) => r.status === 'ok').map((r) => `${r.op}:${r.replica}`));
  const applied = plan.actions.filter((a) => done.has(`${a.op}:${a.replica}`));
  const snapshot = applied.length === 0 ? input.snapshot : projectSnapshot(input.snapshot, { ...plan, actions: applied }, config);
  const fleet = applied.length === 0 ? input.fleet : buildFleet(config, snapshot, input.state, input.now);
  return { snapshot, fleet, status: renderStatusMarkdown(summarize(fleet, plan.unplaceable)) };
}
