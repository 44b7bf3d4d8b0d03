// The fit rule in placement (docs/placement.md#will-it-fit): a node's GPUs of a
// class are used only when the model fits their memory. Unknown is not "does
// not fit": a model of unknown size, or a node that did not report its
// memory, is placed as before (and `fit` in the plan says why nothing was judged).

import { givesText, needsText } from '../fleet/fit.js';
import { allowedClasses, modelFit, modelSize, type FleetFit } from '../fleet/fit-report.js';
import { MODEL_FIT_DEFAULTS, type ModelConfig } from '../types/config.js';
import type { NodeCapacity } from './capacity.js';

export interface FitGate {
  /** May the model use this node's GPUs of this class? */
  allows(cap: NodeCapacity, cls: string): boolean;
  /**
   * When the model fits no class of the fleet it may use: what it needs and
   * what each class gives (the "cannot be placed" reason); else null.
   */
  reason(): string | null;
}

const OPEN: FitGate = { allows: () => true, reason: () => null };

export function fitGate(model: ModelConfig, ff: FleetFit | undefined): FitGate {
  const size = ff === undefined ? null : modelSize(model, ff);
  if (ff === undefined || size === null) return OPEN;
  // A fleet has a handful of memory sizes: judge each once per model.
  const byMemory = new Map<number, boolean>();
  const fitsMemory = (memoryMiB: number): boolean => {
    let fits = byMemory.get(memoryMiB);
    if (fits === undefined) byMemory.set(memoryMiB, (fits = modelFit(model, size, memoryMiB).fits));
    return fits;
  };
  return {
    allows(cap, cls) {
      const memory = cap.memoryMiB.get(cls);
      return memory === undefined || fitsMemory(memory);
    },
    reason() {
      const classes = allowedClasses(model, ff);
      if (classes.length === 0 || classes.some((c) => fitsMemory(c.memoryMiB))) return null;
      const fits = classes.map((c) => ({ c, fit: modelFit(model, size, c.memoryMiB) }));
      const utilization = model.gpuMemoryUtilization ?? MODEL_FIT_DEFAULTS.gpuMemoryUtilization;
      const longest = Math.max(...fits.map((f) => f.fit.maxModelLen ?? 0));
      // The weights fit but a full sequence does not: say how long one may be.
      const shorter = longest > 0 ? `; at most ${longest} tokens fit (maxModelLen)` : '';
      const first = fits[0];
      if (!first) return null;
      return `${needsText(first.fit)}; ${fits.map((f) => givesText(f.c.product, f.fit, utilization)).join(', ')}${shorter}`;
    },
  };
}
