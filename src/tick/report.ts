// How `llmgw reconcile`, `llmgw run` and `llmgw demo` tell the end of a tick: one line, and what failed.

import type { TickResult } from './result.js';
import { escapeTerminal } from '../text/terminal-text.js';

/** Where the lines go: a terminal's stdout and stderr, or a logger's. */
export interface ReportOut {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

export function tickSummary(r: TickResult): string {
  if (r.configInvalid) return 'config invalid: nothing gathered, planned or applied';
  const o = r.outcome;
  const plan = r.plan ? `${r.plan.actions.length} action(s) planned` : 'no plan';
  // A fenced tick may have acted before the refusal: say what it did, not "nothing".
  const fenced = r.verdict.kind === 'held' && r.verdict.reason === 'fenced';
  const applied = fenced
    ? `fenced after started ${o?.started ?? 0}, stopped ${o?.stopped ?? 0}: another holder has acted since`
    : !r.applied
      ? `nothing applied${r.leaseLost ? ' (the lease ran out)' : ''}`
      : `started ${o?.started ?? 0}, stopped ${o?.stopped ?? 0}${o?.drained ? `, draining ${o.drained}` : ''}, waiting ${o?.deferred ?? 0}, failed ${o?.failed ?? 0}`;
  const commit = r.commit
    ? `committed ${r.commit.slice(0, 12)}${r.pushed ? ' and pushed' : ''}`
    : fenced
      ? 'no commit (fenced)'
      : r.leaseLost
        ? 'no commit (the lease ran out)'
        : 'no commit (STATUS.md and state unchanged)';
  return `${plan}; ${applied}; ${commit}`;
}

export function printTickResult(r: TickResult, io: ReportOut): void {
  for (const res of r.outcome?.results ?? []) {
    // A node's text (the replica id it reported, its error): escaped for the terminal (docs/security.md).
    if (res.status === 'failed') io.stderr.write(escapeTerminal(`${res.op} ${res.replica} failed: ${res.error ?? ''}`) + '\n');
  }
  if (r.events.length > 0) io.stdout.write(`events: ${r.events.join(', ')}\n`);
  io.stdout.write(tickSummary(r) + '\n');
}
