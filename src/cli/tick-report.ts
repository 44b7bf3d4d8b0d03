// How `llmgw reconcile` and `llmgw demo` print the end of a tick.

import type { TickResult } from '../daemon/tick-result.js';
import { escapeTerminal } from '../text/terminal-text.js';
import type { Io } from './io.js';

export function tickSummary(r: TickResult): string {
  if (r.configInvalid) return 'config invalid: nothing gathered, planned or applied';
  const o = r.outcome;
  const plan = r.plan ? `${r.plan.actions.length} action(s) planned` : 'no plan';
  const applied = !r.applied
    ? `nothing applied${r.leaseLost ? ' (the lease ran out)' : ''}`
    : `started ${o?.started ?? 0}, stopped ${o?.stopped ?? 0}${o?.drained ? `, draining ${o.drained}` : ''}, waiting ${o?.deferred ?? 0}, failed ${o?.failed ?? 0}`;
  const commit = r.commit
    ? `committed ${r.commit.slice(0, 12)}${r.pushed ? ' and pushed' : ''}`
    : r.leaseLost
      ? 'no commit (the lease ran out)'
      : 'no commit (STATUS.md and state unchanged)';
  return `${plan}; ${applied}; ${commit}`;
}

export function printTickResult(r: TickResult, io: Io): void {
  for (const res of r.outcome?.results ?? []) {
    // A node's text (the replica id it reported, its error): escaped for the terminal (docs/security.md).
    if (res.status === 'failed') io.stderr.write(escapeTerminal(`${res.op} ${res.replica} failed: ${res.error ?? ''}`) + '\n');
  }
  if (r.events.length > 0) io.stdout.write(`events: ${r.events.join(', ')}\n`);
  io.stdout.write(tickSummary(r) + '\n');
}
