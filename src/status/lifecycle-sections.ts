// What STATUS.md and `llmgw status` say about the replica lifecycle
// (docs/notes/lifecycle.md): replicas draining before their stop, rollouts
// under way or failed, answer checks failing, failed replicas with their
// error, and GPUs someone else is using. Rendered only from the status report;
// every string from a node or a config goes through the caller's escaper.

import { capList, plural, sum } from './format.js';
import type { OtherGpus, StatusReport } from './types.js';

type Esc = (s: string) => string;

const MAX = 20;

function listed<T>(items: readonly T[], one: (x: T) => string): string {
  const { shown, more } = capList(items, MAX);
  return shown.map(one).join(', ') + (more > 0 ? `, and ${more} more` : '');
}

/** `gpu-a03:3`, `gpu-b01:[0-1,4]`. */
export function nodeGpus(o: OtherGpus, esc: Esc): string {
  const parts: string[] = [];
  for (let i = 0; i < o.gpus.length; ) {
    let j = i;
    while (j + 1 < o.gpus.length && o.gpus[j + 1] === o.gpus[j]! + 1) j++;
    parts.push(j > i ? `${o.gpus[i]}-${o.gpus[j]}` : `${o.gpus[i]}`);
    i = j + 1;
  }
  const idx = parts.join(',');
  return `${esc(o.node)}:${o.gpus.length === 1 ? idx : `[${idx}]`}`;
}

/** The "needs attention" items of the lifecycle, after the others. */
export function lifecycleAttention(report: StatusReport): string[] {
  const items: string[] = [];
  const other = sum(report.capacity.map((c) => c.other ?? 0));
  if (other > 0) items.push(`${plural(other, 'GPU')} in use by someone else (placement leaves ${other === 1 ? 'it' : 'them'} alone)`);
  const checks = report.replicas.filter((r) => r.check && !r.check.ok).length;
  if (checks > 0) items.push(`${plural(checks, 'replica')} failing ${checks === 1 ? 'its' : 'their'} answer check (not routed)`);
  const failed = report.models.filter((m) => m.rollout?.stage === 'failed').map((m) => m.name);
  if (failed.length > 0) items.push(`rollout failed for ${plural(failed.length, 'model')}: ${failed.join(', ')}`);
  return items;
}

/** Lines under the models table: draining replicas, rollouts, failing checks, failed replicas with their error. */
export function lifecycleModelLines(report: StatusReport, esc: Esc, bullet: string, strong: (s: string) => string = (x) => `**${x}**`): string[] {
  const lines: string[] = [];
  const draining = report.replicas.filter((r) => r.state === 'draining');
  if (draining.length > 0) {
    lines.push(`${bullet}Draining before a stop (out of every router, stopped once none has a request in flight for it, or at drainTimeout): ${listed(draining, (r) => esc(r.id))}`);
  }
  for (const m of report.models.filter((x) => x.rollout)) {
    const r = m.rollout!;
    // A failed one's text says so ("rollout failed for spec …"); its model stands out.
    lines.push(r.stage === 'failed' ? `${bullet}${strong(esc(m.name))}: ${esc(r.text)}` : `${bullet}Rollout of ${esc(m.name)}: ${esc(r.text)}`);
  }
  const checks = report.replicas.filter((r) => r.check && !r.check.ok);
  if (checks.length > 0) lines.push(`${bullet}Answer check failing (not routed): ${listed(checks, (r) => `${esc(r.id)} (${esc(r.check!.error)})`)}`);
  const failed = report.replicas.filter((r) => r.state === 'failed' && r.error);
  if (failed.length > 0) lines.push(`${bullet}Failed: ${listed(failed, (r) => `${esc(r.id)} (${esc(r.error!)})`)}`);
  return lines;
}

/** The Nodes section's line for GPUs in other hands. */
export function otherGpusLine(report: StatusReport, esc: Esc, label: string): string[] {
  const other = report.nodes.other ?? [];
  if (other.length === 0) return [];
  const total = sum(other.map((o) => o.gpus.length));
  return [`${label} (${total}): ${listed(other, (o) => nodeGpus(o, esc))}`];
}
