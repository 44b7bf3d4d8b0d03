// What a reply must also be, beyond its schema (docs/protocol.md#how-a-call-works). A node or a
// router is not trusted to send sane numbers: `1e999` parses as Infinity, passes
// a `type: number`, and is committed as `null`, which the next tick cannot read
// back. So a reply is refused, as that host's error, when it holds a non-finite
// number anywhere (unknown fields included: they are committed too) or one GPU
// index twice. The schemas bound the rest (GPU indices, memory, ports, list
// lengths, router counters as non-negative integers).

import type { SchemaName } from '../util/schema.js';
import { nonFinitePath } from '../util/json-finite.js';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
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

/** Why a reply that parsed must still be refused, before its schema is checked; null when it may go on. */
export function numberProblem(value: unknown): string | null {
  const at = nonFinitePath(value);
  return at === null ? null : `${at}: a number out of range (not finite)`;
}

/** Why a reply that passed its schema must still be refused; null when it is sound. */
export function replyProblem(schema: SchemaName, value: unknown): string | null {
  if (schema === 'agent-report') return duplicateGpu(value);
  return null;
}
