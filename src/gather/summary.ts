// The line `llmgw gather` ends with on stderr: how many hosts answered and,
// for those that did not, how many for each reason class with their names
// (a compressed hostlist), so "8 of 8 failed, no key" reads as exactly that.

import { compressHostlist } from '../text/compress-hostlist.js';
import { REASON_LABEL } from '../text/reason-labels.js';
import type { Snapshot, UnreachableReason } from '../types/snapshot.js';
import { UNREACHABLE_REASONS } from './unreachable-reason.js';

/** Longest hostlist written per reason; a fleet's worth of scattered names would drown the line. */
const MAX_NAMES = 120;

interface Down {
  name: string;
  reason?: UnreachableReason;
}

function byReason(down: readonly Down[]): string {
  const groups = new Map<UnreachableReason, string[]>();
  for (const d of down) {
    const r = d.reason ?? 'unknown';
    groups.set(r, [...(groups.get(r) ?? []), d.name]);
  }
  return UNREACHABLE_REASONS.flatMap((r) => {
    const group = groups.get(r);
    return group ? [[r, group] as const] : [];
  })
    .map(([r, group]) => {
      const names = compressHostlist(group);
      return `${group.length} ${REASON_LABEL[r]} (${names.length > MAX_NAMES ? `${names.slice(0, MAX_NAMES - 1)}…` : names})`;
    })
    .join(', ');
}

function part(what: string, total: number, down: readonly Down[]): string {
  const answered = `${total - down.length} of ${total} ${what} answered`;
  return down.length === 0 ? answered : `${answered}; unreachable: ${byReason(down)}`;
}

export function gatherSummary(snapshot: Snapshot): string {
  const nodesDown = snapshot.nodes.filter((n) => !n.reachable) as Down[];
  const routersDown = snapshot.routers.filter((r) => !r.reachable) as Down[];
  const routers = snapshot.routers.length === 0 ? '' : `; ${part(snapshot.routers.length === 1 ? 'router' : 'routers', snapshot.routers.length, routersDown)}`;
  return `llmgw gather: ${part(snapshot.nodes.length === 1 ? 'node' : 'nodes', snapshot.nodes.length, nodesDown)}${routers}`;
}

/** No node answered (of at least one): nothing in the snapshot is news. */
export function noNodeAnswered(snapshot: Snapshot): boolean {
  return snapshot.nodes.length > 0 && snapshot.nodes.every((n) => !n.reachable);
}
