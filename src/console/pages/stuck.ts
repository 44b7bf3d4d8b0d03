// A replica that runs and serves nothing (docs/placement.md#stalled-and-ejected-replicas)
// reads `running` in its agent's report; its rows in the console say why it is
// out and since when, and come first with the other rows that need a look.

import type { StatusReport, StuckReplica } from '../../status/index.js';
import { when } from './layout.js';

/** The state cell's text and whether the row needs attention, for a replica of `report`'s stuck list; null for any other. */
export function stuckState(report: StatusReport, replica: string): { text: string; attention: true } | null {
  const s = (report.stuckReplicas ?? []).find((x) => x.replica === replica);
  return s ? { text: stuckText(s), attention: true } : null;
}

function stuckText(s: StuckReplica): string {
  return `running, ${s.kind === 'stalled' ? 'stalled' : 'ejected by every router'} since ${when(s.since)}`;
}
