// What STATUS.md and `llmgw status` say about the replica lifecycle
// (docs/status.md#what-it-shows): replicas draining before their stop, rollouts
// under way or failed, and GPUs someone else is using. Rendered only from the status report;
// every string from a node or a config goes through the caller's escaper.

import { capList, sum } from '../../text/format.js';
import type { OtherGpus, StatusReport } from '../../status/types.js';

type Esc = (s: string) => string;

const MAX = 20;

function listed<T>(items: readonly T[], one: (x: T) => string): string {
  const { shown, more } = capList(items, MAX);
  return shown.map(one).join(', ') + (more > 0 ? `, and ${more} more` : '');
}

/** `gpu-a03:3`, `gpu-b01:[0-1,4]`. */
export function nodeGpus(o: OtherGpus, esc: Esc): string {
  // Runs of consecutive indexes, each [first, last].
  const runs: [number, number][] = [];
  for (const g of o.gpus) {
    const run = runs.at(-1);
    if (run !== undefined && g === run[1] + 1) run[1] = g;
    else runs.push([g, g]);
  }
  const idx = runs.map(([lo, hi]) => (hi > lo ? `${lo}-${hi}` : `${lo}`)).join(',');
  return `${esc(o.node)}:${o.gpus.length === 1 ? idx : `[${idx}]`}`;
}

/**
 * Lines under the models table: replicas draining and rollouts under way or
 * failed (with why). Failing answer checks and failed replicas are named, with
 * their error, in "Needs attention" (attention.ts), so not again here.
 */
export function lifecycleModelLines(report: StatusReport, esc: Esc, bullet: string, strong: (s: string) => string = (x) => `**${x}**`): string[] {
  const lines: string[] = [];
  const draining = report.replicas.filter((r) => r.state === 'draining');
  if (draining.length > 0) {
    lines.push(
      `${bullet}Draining before a stop (out of every router, stopped once none has a request in flight for it, or at drainTimeout): ${listed(draining, (r) => esc(r.id))}`,
    );
  }
  for (const m of report.models) {
    const r = m.rollout;
    if (!r) continue;
    // A failed one's text says so ("rollout failed for spec …"); its model stands out.
    lines.push(r.stage === 'failed' ? `${bullet}${strong(esc(m.name))}: ${esc(r.text)}` : `${bullet}Rollout of ${esc(m.name)}: ${esc(r.text)}`);
  }
  return lines;
}

/** The Nodes section's line for GPUs in other hands. */
export function otherGpusLine(report: StatusReport, esc: Esc, label: string): string[] {
  const other = report.nodes.other ?? [];
  if (other.length === 0) return [];
  const total = sum(other.map((o) => o.gpus.length));
  return [`${label} (${total}): ${listed(other, (o) => nodeGpus(o, esc))}`];
}
