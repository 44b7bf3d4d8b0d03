// One pass over a config document's plain data, for the checks that apply to
// every value wherever it is (finite numbers, `${VAR}` places). Iterative, so
// deep nesting cannot overflow the stack; the path of a value is only built
// for the few values a check reports.

import type { PathSegment } from './yaml-source.js';

interface Link {
  parent: Link | null;
  seg: PathSegment;
}

export type Visit = (value: unknown, path: () => PathSegment[], key?: string) => void;

function toPath(link: Link | null): PathSegment[] {
  const out: PathSegment[] = [];
  for (let l = link; l; l = l.parent) out.push(l.seg);
  return out.reverse();
}

/**
 * Calls `visit` once for every value under `root`, the document itself
 * excepted, with the mapping key it sits under (undefined in a list).
 * Top-level `x-` keys are skipped: llmgw ignores them, and what they anchor is
 * checked where it is used.
 */
export function walkValues(root: unknown, visit: Visit): void {
  const stack: [unknown, Link | null][] = [[root, null]];
  for (let frame = stack.pop(); frame !== undefined; frame = stack.pop()) {
    const [value, link] = frame;
    if (link !== null) visit(value, () => toPath(link), typeof link.seg === 'string' ? link.seg : undefined);
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push([value[i], { parent: link, seg: i }]);
    } else if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value);
      for (const [k, v] of entries.reverse()) {
        if (link === null && k.startsWith('x-')) continue;
        stack.push([v, { parent: link, seg: k }]);
      }
    }
  }
}
