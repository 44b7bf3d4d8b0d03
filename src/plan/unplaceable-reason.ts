// A model that cannot be placed gets a reason a person can act on: what one
// replica needs, and what each fabric has left once this plan's higher-ranked
// placements are counted.

import { plural } from '../text/format.js';
import type { ModelConfig } from '../types/config.js';
import { wholeClass } from './capacity.js';
import type { PlaceContext } from './place-context.js';

function perFabric(ctx: PlaceContext, value: (fabric: string) => number): string {
  return ctx.capacity.fabrics.map((f) => `${f} ${value(f)}`).join(', ');
}

/** "needs 4 free H100 GPUs on one node; most free on one node: ib-a 2, ib-b 3" */
export function oneNodeReason(model: ModelConfig, ctx: PlaceContext): string {
  const most = new Map<string, number>();
  for (const cap of ctx.capacity.nodes) {
    let free = 0;
    for (const [cls, list] of cap.free) {
      if (model.gpuClass === undefined || cls === model.gpuClass) free = Math.max(free, list.length);
    }
    const fabric = cap.node.fabric;
    most.set(fabric, Math.max(most.get(fabric) ?? 0, free));
  }
  const what = model.gpuClass === undefined ? 'free GPU' : `free ${model.gpuClass} GPU`;
  // With no gpuClass a replica still takes GPUs of one class, which matters only in a mixed fleet.
  const oneClass = model.gpuClass === undefined && model.gpus > 1 && classCount(ctx) > 1 ? ' of one class' : '';
  return `needs ${plural(model.gpus, what)}${oneClass} on one node; most free on one node: ${perFabric(ctx, (f) => most.get(f) ?? 0)}${noneSeen(model, ctx)}`;
}

/** "needs 2 whole H200 nodes in one fabric; free whole H200 nodes: ib-a 1, ib-b 0" */
export function multiNodeReason(model: ModelConfig, ctx: PlaceContext): string {
  const counts = new Map<string, Map<string, number>>();
  let tooSmall = false;
  for (const cap of ctx.capacity.nodes) {
    const cls = wholeClass(cap);
    if (cls === null || (model.gpuClass !== undefined && cls !== model.gpuClass)) continue;
    if (cap.gpuCount < model.gpus) {
      tooSmall = true;
      continue;
    }
    const byClass = counts.get(cap.node.fabric) ?? new Map<string, number>();
    byClass.set(cls, (byClass.get(cls) ?? 0) + 1);
    counts.set(cap.node.fabric, byClass);
  }
  // With no gpuClass a replica still needs one class throughout: a fabric offers its largest class.
  const best = (f: string) => Math.max(0, ...(counts.get(f)?.values() ?? []));
  const cls = model.gpuClass === undefined ? '' : `${model.gpuClass} `;
  const sized = tooSmall ? ` (only nodes with at least ${model.gpus} GPUs count)` : '';
  return `needs ${model.nodes} whole ${cls}nodes in one fabric; free whole ${cls}nodes: ${perFabric(ctx, best)}${sized}${noneSeen(model, ctx)}`;
}

/** A class no reachable node has at all is the likelier mistake: say so. */
function noneSeen(model: ModelConfig, ctx: PlaceContext): string {
  if (model.gpuClass === undefined) return '';
  for (const node of ctx.fleet.nodes) {
    if (node.condition === 'reachable' && node.gpus.some((g) => g.class === model.gpuClass)) return '';
  }
  return ` (no reachable node has ${model.gpuClass} GPUs)`;
}

function classCount(ctx: PlaceContext): number {
  const classes = new Set<string>();
  for (const node of ctx.fleet.nodes) for (const gpu of node.gpus) classes.add(gpu.class);
  return classes.size;
}
