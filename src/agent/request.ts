// Checking a request before the agent acts on it. The reconciler is trusted
// but the wire is not: a malformed request is refused whole, with one line
// saying what is wrong, and nothing is started or stopped.

import type { AgentApplyRequest, AgentReportRequest, StopEntry } from '../types/snapshot.js';
import { nonFinitePath } from '../util/json-finite.js';
import { formatSchemaIssues, getValidator, type SchemaName } from '../util/schema.js';
import { REPLICA_ID } from './replica-store.js';

export type Checked<T> = { ok: true; value: T } | { ok: false; error: string };

/**
 * An absent list means an empty one (`storage` absent: a node told nothing),
 * so a request written by hand need not spell out every empty array.
 */
function withEmptyLists(value: unknown, keys: string[]): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const filled: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const k of keys) filled[k] ??= [];
  return filled;
}

function parse<T>(input: string, schema: SchemaName, lists: string[]): Checked<T> {
  let value: unknown;
  try {
    value = JSON.parse(input);
  } catch {
    return { ok: false, error: 'request is not JSON' };
  }
  const v = value as { version?: unknown } | null;
  if (typeof v === 'object' && v !== null && !Array.isArray(v) && v.version !== undefined && v.version !== 1) {
    return { ok: false, error: `unsupported request version ${JSON.stringify(v.version)} (this agent speaks 1)` };
  }
  // `1e999` parses as Infinity and passes a `type: number`: a grace or timeout of forever is never meant.
  const infinite = nonFinitePath(value);
  if (infinite !== null) return { ok: false, error: `${infinite}: not a finite number` };
  value = withEmptyLists(value, lists);
  const checked = getValidator(schema)(value);
  if (!checked.ok) return { ok: false, error: formatSchemaIssues(checked.errors) };
  return { ok: true, value: value as T };
}

/** The id a stop entry names (a plain id, or `{replica, graceSeconds}`). */
export function stopId(entry: StopEntry): string {
  return typeof entry === 'string' ? entry : entry.replica;
}

export function checkReportRequest(input: string): Checked<AgentReportRequest> {
  return parse<AgentReportRequest>(input, 'agent-report-request', ['storage', 'weights']);
}

/**
 * Beyond the schema: replica ids name files in the state directory and a
 * systemd unit, so they must be plain names, never a path.
 */
export function checkApplyRequest(input: string): Checked<AgentApplyRequest> {
  const p = parse<AgentApplyRequest>(input, 'agent-apply-request', ['start', 'stop']);
  if (!p.ok) return p;
  const badStart = p.value.start.findIndex((s) => !REPLICA_ID.test(s.replica));
  if (badStart >= 0) return { ok: false, error: `/start/${badStart}/replica: ${JSON.stringify(p.value.start[badStart]?.replica)} is not a replica id` };
  const badStop = p.value.stop.findIndex((e) => !REPLICA_ID.test(stopId(e)));
  if (badStop >= 0) {
    const entry = p.value.stop[badStop] as StopEntry;
    const at = typeof entry === 'string' ? `/stop/${badStop}` : `/stop/${badStop}/replica`;
    return { ok: false, error: `${at}: ${JSON.stringify(stopId(entry))} is not a replica id` };
  }
  return p;
}
