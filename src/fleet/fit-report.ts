// The fit of every model on every GPU class it may use (docs/placement.md#will-it-fit),
// read from the fleet: the size and config.json of the weights from the nodes
// that hold them, the memory of each class from the GPUs the nodes reported.
// The planner filters classes with it and plan and status JSON show it, so the
// two cannot disagree on what fits.

import { MODEL_FIT_DEFAULTS, type ModelConfig } from '../types/config.js';
import type { Fleet } from '../types/fleet.js';
import { fitOn, gib, shapeOf, type Fit, type ModelShape } from './fit.js';

/** What the rule knows of a model's weights: a holding's measured size (and shape), else models.yaml weightsBytes. */
export interface ModelSize {
  bytes: number;
  /** null: no config.json (or only weightsBytes): the KV cache cannot be computed. */
  shape: ModelShape | null;
}

/** A GPU class's memory: its smallest GPU, so a class that mixes 40 GB and 80 GB cards is judged by the 40. */
export interface ClassMemory {
  cls: string;
  /** The product name of that GPU (untrusted text from a report). */
  product: string;
  memoryMiB: number;
}

/** status and plan JSON `fit.<model>.<class>`. */
export interface FitEntry {
  fits: boolean;
  weightsGiBPerGpu: number;
  kvGiBPerGpu: number | null;
  maxModelLen: number | null;
  sequences: number | null;
}

/** model -> class -> its fit; null when the model's size is unknown. */
export type FitReport = Record<string, Record<string, FitEntry> | null>;

export interface FleetFit {
  /** weights -> the first holding's size, in node-name order. */
  sizes: ReadonlyMap<string, ModelSize>;
  /** Every class a node reported with its memory, in name order. */
  classes: ReadonlyMap<string, ClassMemory>;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** One pass over the nodes: what the fit of every model is judged by. */
export function fleetFit(fleet: Fleet): FleetFit {
  const sizes = new Map<string, ModelSize>();
  const classes = new Map<string, ClassMemory>();
  for (const node of fleet.nodes) {
    for (const g of node.gpus) {
      if (g.memoryMiB === undefined) continue;
      const known = classes.get(g.class);
      if (!known || g.memoryMiB < known.memoryMiB || (g.memoryMiB === known.memoryMiB && cmp(g.name, known.product) < 0)) {
        classes.set(g.class, { cls: g.class, product: g.name, memoryMiB: g.memoryMiB });
      }
    }
    if (node.holds.size === 0) continue;
    // Only paths cluster.yaml tells the node to look in count (node.holds), as for holdings.
    for (const entry of node.report?.storage ?? []) {
      // A node's report is untrusted: an entry may be anything, not the size the type describes.
      for (const [weights, size] of Object.entries(entry.sizes ?? {}) as [string, NonNullable<typeof entry.sizes>[string] | null | undefined][]) {
        if (sizes.has(weights) || !node.holds.has(weights) || !entry.weights.includes(weights)) continue;
        if (typeof size?.bytes !== 'number' || !(size.bytes > 0)) continue;
        sizes.set(weights, { bytes: size.bytes, shape: shapeOf(size.config) });
      }
    }
  }
  return { sizes, classes: new Map([...classes].sort(([a], [b]) => cmp(a, b))) };
}

/** The model's size: a node's measured holding first, else models.yaml weightsBytes, else unknown. */
export function modelSize(model: ModelConfig, ff: FleetFit): ModelSize | null {
  const held = ff.sizes.get(model.weights);
  if (held) return held;
  return model.weightsBytes !== undefined ? { bytes: model.weightsBytes, shape: null } : null;
}

/** The rule for one model on GPUs of one memory size. */
export function modelFit(model: ModelConfig, size: ModelSize, memoryMiB: number): Fit {
  return fitOn({
    weightsBytes: size.bytes,
    shape: size.shape,
    gpus: model.gpus * model.nodes,
    gpuMemoryBytes: memoryMiB * 2 ** 20,
    utilization: model.gpuMemoryUtilization ?? MODEL_FIT_DEFAULTS.gpuMemoryUtilization,
    ...(model.maxModelLen !== undefined ? { maxModelLen: model.maxModelLen } : {}),
    ...(model.kvCacheDtype !== undefined ? { kvCacheDtype: model.kvCacheDtype } : {}),
  });
}

/** The classes of the fleet a model may use: its gpuClass, or every class. */
export function allowedClasses(model: ModelConfig, ff: FleetFit): ClassMemory[] {
  return [...ff.classes.values()].filter((c) => model.gpuClass === undefined || c.cls === model.gpuClass);
}

export function fitEntry(fit: Fit): FitEntry {
  return {
    fits: fit.fits,
    weightsGiBPerGpu: gib(fit.weightsBytesPerGpu),
    kvGiBPerGpu: fit.kvBytesPerGpu === null ? null : gib(fit.kvBytesPerGpu),
    maxModelLen: fit.maxModelLen,
    sequences: fit.sequences,
  };
}

/** `fit` of plan and status JSON: every model, by name, on every class it may use. */
export function fitReport(fleet: Fleet, ff: FleetFit = fleetFit(fleet)): FitReport {
  const out: FitReport = {};
  for (const model of [...fleet.config.models].sort((a, b) => cmp(a.name, b.name))) {
    const size = modelSize(model, ff);
    if (size === null) {
      out[model.name] = null;
      continue;
    }
    const byClass: Record<string, FitEntry> = {};
    for (const c of allowedClasses(model, ff)) byClass[c.cls] = fitEntry(modelFit(model, size, c.memoryMiB));
    out[model.name] = byClass;
  }
  return out;
}

/**
 * One sentence per model of unknown size that no node holds, saying how to make
 * it known. Weights a node holds but whose size it did not report (an agent
 * older than sizes) become known when that agent is upgraded: no warning on
 * every plan meanwhile.
 */
export function fitWarnings(fleet: Fleet, ff: FleetFit = fleetFit(fleet)): string[] {
  const held = new Set<string>();
  for (const node of fleet.nodes) for (const w of node.holds) held.add(w);
  return [...fleet.config.models]
    .filter((m) => m.replicas > 0 && modelSize(m, ff) === null && !held.has(m.weights))
    .sort((a, b) => cmp(a.name, b.name))
    .map(
      (m) =>
        `model '${m.name}': its size is unknown (no node holds ${m.weights}), so the plan cannot tell whether it fits: ` +
        `set weightsBytes in models.yaml, or put the weights where a node looks`,
    );
}
