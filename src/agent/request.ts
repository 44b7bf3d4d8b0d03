// Checking a request before the agent acts on it. The reconciler is trusted
// but the wire is not: a malformed request is refused whole, with one line
// saying what is wrong, and nothing is started or stopped.

import type { AgentApplyRequest, AgentReportRequest } from '../types/snapshot.js';
import { REPLICA_ID } from './replica-store.js';

export type Checked<T> = { ok: true; value: T } | { ok: false; error: string };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isString = (v: unknown): v is string => typeof v === 'string';
const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every(isString);
const isIndexArray = (v: unknown): v is number[] => Array.isArray(v) && v.every((n) => Number.isInteger(n) && n >= 0);

function parse(input: string): Checked<Record<string, unknown>> {
  let value: unknown;
  try {
    value = JSON.parse(input);
  } catch {
    return { ok: false, error: 'request is not JSON' };
  }
  if (!isObject(value)) return { ok: false, error: 'request is not a JSON object' };
  if (value.version !== 1) return { ok: false, error: `unsupported request version ${JSON.stringify(value.version)} (this agent speaks 1)` };
  return { ok: true, value };
}

// TODO(schema): validate with getValidator('agent-report-request') from src/util/schema.ts once merged.
export function checkReportRequest(input: string): Checked<AgentReportRequest> {
  const p = parse(input);
  if (!p.ok) return p;
  const r = p.value;
  const storage = r.storage ?? [];
  if (!Array.isArray(storage)) return { ok: false, error: 'storage: must be an array' };
  for (const [i, s] of storage.entries()) {
    if (!isObject(s) || !isString(s.path) || s.path === '' || (s.kind !== 'local' && s.kind !== 'shared') || (s.filer !== undefined && !isString(s.filer))) {
      return { ok: false, error: `storage[${i}]: needs path, kind local|shared and an optional filer` };
    }
  }
  const weights = r.weights ?? [];
  if (!isStringArray(weights)) return { ok: false, error: 'weights: must be an array of strings' };
  return { ok: true, value: { version: 1, node: isString(r.node) ? r.node : '', storage: storage as AgentReportRequest['storage'], weights } };
}

function checkStart(s: unknown, i: number): string | null {
  const where = `start[${i}]`;
  if (!isObject(s)) return `${where}: must be an object`;
  if (!isString(s.replica) || !REPLICA_ID.test(s.replica)) return `${where}.replica: must match ${REPLICA_ID.source}`;
  for (const k of ['model', 'spec', 'endpoint', 'health'] as const) if (!isString(s[k])) return `${where}.${k}: must be a string`;
  if (!isStringArray(s.command) || s.command.length === 0 || s.command[0] === '') return `${where}.command: must be a non-empty array of strings`;
  if (!isIndexArray(s.gpus)) return `${where}.gpus: must be an array of GPU indices`;
  if (!Number.isInteger(s.port) || (s.port as number) < 1 || (s.port as number) > 65535) return `${where}.port: must be a port number`;
  if (typeof s.startTimeoutSeconds !== 'number' || !(s.startTimeoutSeconds >= 0)) return `${where}.startTimeoutSeconds: must be a number >= 0`;
  if (s.rank !== undefined && !Number.isInteger(s.rank)) return `${where}.rank: must be an integer`;
  if (s.env !== undefined && !(isObject(s.env) && Object.values(s.env).every(isString))) return `${where}.env: must map names to strings`;
  return null;
}

// TODO(schema): validate with getValidator('agent-apply-request') from src/util/schema.ts once merged.
export function checkApplyRequest(input: string): Checked<AgentApplyRequest> {
  const p = parse(input);
  if (!p.ok) return p;
  const r = p.value;
  const start = r.start ?? [];
  const stop = r.stop ?? [];
  if (!Array.isArray(start)) return { ok: false, error: 'start: must be an array' };
  for (const [i, s] of start.entries()) {
    const problem = checkStart(s, i);
    if (problem) return { ok: false, error: problem };
  }
  if (!isStringArray(stop)) return { ok: false, error: 'stop: must be an array of replica ids' };
  const badStop = stop.find((id) => !REPLICA_ID.test(id));
  if (badStop !== undefined) return { ok: false, error: `stop: ${JSON.stringify(badStop)} is not a replica id` };
  const starts = (start as Record<string, unknown>[]).map((s) => ({
    rank: 0,
    peers: [],
    env: {},
    weights: '',
    weightsPath: '',
    ...s,
  })) as unknown as AgentApplyRequest['start'];
  return { ok: true, value: { version: 1, node: isString(r.node) ? r.node : '', start: starts, stop } };
}
