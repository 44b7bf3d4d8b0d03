// The line `llmgw gather` ends with on stderr: how many hosts answered and,
// for those that did not, how many for each reason class with their names
// (a compressed hostlist), so "8 of 8 failed, no key" reads as exactly that —
// and, when every host of a class failed the same way, that one cause
// (`3 auth (gpu-[1-3]: not contacted: cannot read identityFile /k (ENOENT))`):
// the line an operator reads names what to fix, not only where.

import { compressHostlist } from '../text/compress-hostlist.js';
import { REASON_LABEL } from '../text/reason-labels.js';
import { escapeTerminal } from '../text/terminal-text.js';
import type { Snapshot, UnreachableReason } from '../types/snapshot.js';
import { UNREACHABLE_REASONS } from './unreachable-reason.js';

/** Longest hostlist written per reason; a fleet's worth of scattered names would drown the line. */
const MAX_NAMES = 120;

interface Down {
  name: string;
  reason?: UnreachableReason;
  error?: string;
}

/** Longest cause written after a class's hostlist. */
const MAX_CAUSE = 300;

/** A host's error without the `name (host:port): ` its line starts with (ssh-errors.ts hostLabel). */
function cause(d: Down): string {
  const text = d.error ?? '';
  const m = /^\S+(?: \([^)]*\))?: (.*)$/s.exec(text);
  // A host's text: one line, nothing a terminal would obey.
  return escapeTerminal((m?.[1] ?? text).split('\n')[0] ?? '');
}

/** The one cause every host of a class shares, or null when they differ (each is in the snapshot). */
function shared(group: readonly Down[]): string | null {
  const causes = new Set(group.map(cause));
  const [only] = causes;
  if (causes.size !== 1 || only === undefined || only === '') return null;
  return only.length > MAX_CAUSE ? `${only.slice(0, MAX_CAUSE - 1)}…` : only;
}

function byReason(down: readonly Down[]): string {
  const groups = new Map<UnreachableReason, Down[]>();
  for (const d of down) {
    const r = d.reason ?? 'unknown';
    groups.set(r, [...(groups.get(r) ?? []), d]);
  }
  return UNREACHABLE_REASONS.flatMap((r) => {
    const group = groups.get(r);
    return group ? [[r, group] as const] : [];
  })
    .map(([r, group]) => {
      const names = compressHostlist(group.map((d) => d.name));
      const why = shared(group);
      return `${group.length} ${REASON_LABEL[r]} (${names.length > MAX_NAMES ? `${names.slice(0, MAX_NAMES - 1)}…` : names}${why === null ? '' : `: ${why}`})`;
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
