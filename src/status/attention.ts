// "What needs attention first": the same short list for the terminal and
// STATUS.md, derived from the report's numbers only.

import { plural, sum } from './format.js';
import { lifecycleAttention } from './lifecycle-sections.js';
import type { StatusReport } from './types.js';


export function attentionItems(report: StatusReport): string[] {
  const items: string[] = [];
  // First: while it stands, nothing else on this list is being repaired.
  if (report.blocked !== null) items.push(`the plan is blocked, nothing is applied: ${report.blocked}`);
  const { lost, unreachable } = report.nodes;
  if (lost.length > 0) items.push(`${plural(lost.length, 'node')} lost (${lost.length === 1 ? 'its' : 'their'} replicas are placed elsewhere)`);
  if (unreachable.length > 0) items.push(`${plural(unreachable.length, 'node')} unreachable (not yet lost)`);
  const unhealthy = sum(report.capacity.map((c) => c.unhealthy));
  if (unhealthy > 0) items.push(`${plural(unhealthy, 'GPU')} unhealthy`);
  if (report.unplaceable.length > 0) items.push(`${plural(report.unplaceable.length, 'model')} cannot be placed`);
  const failed = sum(report.models.map((m) => m.failed));
  if (failed > 0) items.push(`${plural(failed, 'replica')} failed`);
  const down = report.models.filter((m) => m.desired > 0 && m.running === 0).length;
  if (down > 0) items.push(`${plural(down, 'model')} with no running replica`);
  const short = report.models.filter((m) => m.running + m.starting < m.desired).length;
  if (short > 0) items.push(`${plural(short, 'model')} with fewer replicas than desired`);
  items.push(...lifecycleAttention(report));
  return items;
}
