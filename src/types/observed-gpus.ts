// The GPU products of the committed snapshot, as validate's advice uses them
// (docs/config.md): data the store reads and config only looks at.

import type { ConfigProblem } from './config.js';

export interface ObservedGpus {
  /** The file as printed. */
  file: string;
  /** Every distinct product name reported, e.g. `NVIDIA H100 80GB HBM3`. */
  products: string[];
}

export type ObservedGpusResult = { ok: true; gpus: ObservedGpus | null } | { ok: false; warning: ConfigProblem };
