// The caps that bound the work one config can ask for (docs/config.md). A PR
// is input from outside: without them a few bytes of YAML (a billion-laughs
// alias tree, `n[1-100000]` three hundred times) cost minutes and gigabytes
// before any check could say no. Each cap is checked before the work it bounds.

/** cluster.yaml and models.yaml: larger files are refused before they are parsed. */
export const MAX_CONFIG_BYTES = 4 * 1024 * 1024;

/** Names one hostlist pattern may expand to. */
export { MAX_HOSTLIST_NAMES } from './hostlist.js';

/** Nodes all of cluster.yaml's entries may expand to together, counted before any is expanded. */
export const MAX_TOTAL_NODES = 100_000;

/**
 * yaml's `maxAliasCount`: how many alias nodes may be resolved, weighted by
 * how many aliases each one holds, so an alias-of-aliases tree stops early.
 */
export const MAX_ALIAS_COUNT = 1000;

/** Values aliases may add to a document in all (see yaml-shape.ts): a file without aliases never comes near. */
export const MAX_ALIAS_VALUES = 1_000_000;
