// Numbers in a config must be finite. YAML has `.inf` and `.nan`, and
// `1e999` reads as infinity; JSON Schema's `integer` lets Infinity through
// (Infinity % 1 is NaN, not 0), and a resolver reading `gpus: .inf` as "not an
// integer, so the default" planned it as 1. So every number is checked once,
// after parsing, wherever it is.

import type { ConfigProblem } from '../types/config.js';
import { walkValues } from './value-walk.js';
import { formatPath, problemAt, type YamlSource } from './yaml-source.js';

function what(n: number): string {
  if (Number.isNaN(n)) return 'not a number (.nan)';
  return n > 0 ? 'infinite (.inf, or a number too large to hold)' : 'infinite (-.inf, or a number too large to hold)';
}

/** One error per non-finite number; returns their paths, so other checks of those values stay quiet. */
export function nonFiniteNumbers(src: YamlSource, errors: ConfigProblem[]): Set<string> {
  const at = new Set<string>();
  walkValues(src.value, (value, pathOf) => {
    if (typeof value !== 'number' || Number.isFinite(value)) return;
    const path = pathOf();
    errors.push(problemAt(src, path, `must be a finite number; this is ${what(value)}`));
    at.add(formatPath(path));
  });
  return at;
}
