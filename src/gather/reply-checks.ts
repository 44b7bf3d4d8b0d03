// What a reply must also be, beyond its schema (docs/notes/agent.md). A node or a
// router is not trusted to send sane numbers: `1e999` parses as Infinity, passes
// a `type: number`, and is committed as `null`, which the next tick cannot read
// back. So a reply is refused, as that host's error, when it holds a non-finite
// number anywhere (unknown fields included: they are committed too), a negative
// or fractional count, or one GPU index twice. The schemas bound the rest
// (GPU indices, memory, ports, list lengths).

import type { SchemaName } from '../util/schema.js';
import { nonFinitePath } from '../util/json-finite.js';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A key the host chose, bounded for the one-line error. */
function key(k: string): string {
  return k.length > 60 ? `${k.slice(0, 60)}…` : k;
}

function isCount(v: unknown): boolean {
  return typeof v !== 'number' || (Number.isSafeInteger(v) && v >= 0);
}

/** Each GPU index once: two GPUs reported as index 0 would be counted twice. */
function duplicateGpu(value: unknown): string | null {
  const gpus = isObject(value) && Array.isArray(value.gpus) ? value.gpus : [];
  const seen = new Set<unknown>();
  for (const [i, g] of gpus.entries()) {
    const index = isObject(g) ? g.index : undefined;
    if (seen.has(index)) return `/gpus/${i}/index: GPU ${String(index)} is reported twice`;
    seen.add(index);
  }
  return null;
}

/** Router counters (`inflight`, `served`) are counts: whole and never negative. */
function badRouterCount(value: unknown): string | null {
  if (!isObject(value)) return null;
  if (isObject(value.inflight)) {
    for (const [id, n] of Object.entries(value.inflight)) if (!isCount(n)) return `/inflight/${key(id)}: ${String(n)} is not a count`;
  }
  if (isObject(value.served)) {
    for (const [id, s] of Object.entries(value.served)) {
      if (!isObject(s)) continue;
      for (const k of ['requests', 'errors']) if (!isCount(s[k])) return `/served/${key(id)}/${k}: ${String(s[k])} is not a count`;
    }
  }
  return null;
}

/** Why a reply that parsed must still be refused, before its schema is checked; null when it may go on. */
export function numberProblem(value: unknown): string | null {
  const at = nonFinitePath(value);
  return at === null ? null : `${at}: a number out of range (not finite)`;
}

/** Why a reply that passed its schema must still be refused; null when it is sound. */
export function replyProblem(schema: SchemaName, value: unknown): string | null {
  if (schema === 'agent-report') return duplicateGpu(value);
  if (schema === 'router-usage') return badRouterCount(value);
  return null;
}
