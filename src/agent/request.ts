// Checking a request before the agent acts on it. The reconciler is trusted
// but the wire is not: a malformed request is refused whole, with one line
// saying what is wrong, and nothing is started or stopped.

import type { AgentApplyRequest, AgentReportRequest } from '../types/snapshot.js';
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
  value = withEmptyLists(value, lists);
  const checked = getValidator(schema)(value);
  if (!checked.ok) return { ok: false, error: formatSchemaIssues(checked.errors) };
  return { ok: true, value: value as T };
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
  const badStop = p.value.stop.findIndex((id) => !REPLICA_ID.test(id));
  if (badStop >= 0) return { ok: false, error: `/stop/${badStop}: ${JSON.stringify(p.value.stop[badStop])} is not a replica id` };
  return p;
}
