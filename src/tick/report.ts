// How `llmgw reconcile`, `llmgw run` and `llmgw demo` tell the end of a tick:
// the plan's table (what starts and stops where), one line, and what failed.
// The table is `llmgw plan`'s own (src/views/plan/render-text.ts), so what a
// tick prints reads exactly as the preview did.

import type { TickResult } from './result.js';
import { escapeTerminal } from '../text/terminal-text.js';
import type { Plan } from '../types/plan.js';
import { renderPlanTable } from '../views/plan/render-text.js';

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

/** The plan's table, one line each, safe for a terminal: each action with node, GPUs, port and weights; what cannot be placed; the summary. */
export function planTable(plan: Plan): string[] {
  return renderPlanTable(plan, { color: false }).replace(/\n$/, '').split('\n').map(escapeTerminal);
}

/** The table of a tick that had something to do; none for a steady tick (a daemon's log stays quiet). */
export function tickTable(r: TickResult): string[] {
  return r.plan !== null && r.plan.actions.length > 0 ? planTable(r.plan) : [];
}

export function printTickResult(r: TickResult, io: ReportOut): void {
  for (const line of tickTable(r)) io.stdout.write(line + '\n');
  for (const res of r.outcome?.results ?? []) {
    // A node's text (the replica id it reported, its error): escaped for the terminal (docs/security.md).
    if (res.status === 'failed') io.stderr.write(escapeTerminal(`${res.op} ${res.replica} failed: ${res.error ?? ''}`) + '\n');
  }
  if (r.events.length > 0) io.stdout.write(`events: ${r.events.join(', ')}\n`);
  io.stdout.write(tickSummary(r) + '\n');
}
