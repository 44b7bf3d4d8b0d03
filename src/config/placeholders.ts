// The `{placeholders}` an engine command and a model's args may use (docs/config.md),
// and the check that catches a typo such as `{weightPath}` before it reaches a
// node as a literal argument.

import { didYouMean } from './did-you-mean.js';

export const COMMAND_PLACEHOLDERS = ['model', 'replica', 'weights', 'weightsPath', 'gpus', 'port', 'host', 'rank', 'nodes', 'head', 'adapters'] as const;

/** `{adapters}` becomes one argv element per adapter (docs/config.md#on-demand-models), so it must be an element of its own. */
export const ADAPTERS_ELEMENT = '{adapters}';

/** The message for `{adapters}` inside a longer element, or null. */
export function adaptersProblem(text: string): string | null {
  return text !== ADAPTERS_ELEMENT && text.includes(ADAPTERS_ELEMENT)
    ? '{adapters} must be an argv element of its own (it becomes one element per adapter)'
    : null;
}

export type CommandPlaceholder = (typeof COMMAND_PLACEHOLDERS)[number];

/** `{name}`-style words, not `${VAR}` and not JSON such as `{"a": 1}`. */
const PLACEHOLDER = /(?<!\$)\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** One message per unknown placeholder in `text`; [] when all are known. */
export function unknownPlaceholders(text: string, known: readonly string[]): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(PLACEHOLDER)) {
    const name = m[1] ?? '';
    if (known.includes(name)) continue;
    const hint = didYouMean(name, known).replace(/'([^']*)'/, '{$1}');
    out.push(`unknown placeholder {${name}}${hint}`);
  }
  return out;
}
