// Replicas that span nodes (docs/placement.md step 3, `nodes: k`): k free whole nodes
// of one class in ONE fabric, each with at least `gpus` GPUs. Fabrics are not
// connected to one another, so free GPUs on another fabric are no capacity
// here. The fabric is chosen by (a) how many of its chosen nodes hold the
// weights, then whether the fabric holds them, (b) best fit: fewest free whole
// nodes, (c) name; inside it, holders first, then by name.

import { fabricHolds } from '../fleet/index.js';
import { MODEL_FIT_DEFAULTS, type ModelConfig } from '../types/config.js';
import type { WeightsLocality } from '../types/plan.js';
import type { NodeCapacity } from './capacity.js';
import { lowestCommonPort, takeGpus, wholeClass } from './capacity.js';
import type { PlaceContext, PlaceResult, Placed } from './place-context.js';
import { basePortOf, fabricCounts } from './place-context.js';
import { compareNames } from './replica-ids.js';
import { fitGate, type FitGate } from './place-fit.js';
import { multiNodeReason } from './unplaceable-reason.js';

/** Free whole nodes of one class in one fabric, holders first, then by name. */
interface Pool {
  fabric: string;
  cls: string;
  fabricHolds: boolean;
  nodes: NodeCapacity[];
  holders: number;
  /** Nodes before this index are taken by this plan. */
  next: number;
}

function poolsFor(model: ModelConfig, ctx: PlaceContext, gate: FitGate): Pool[] {
  const pools = new Map<string, Pool>();
  for (const cap of ctx.capacity.nodes) {
    const cls = wholeClass(cap);
    if (cls === null || cap.gpuCount < model.gpus) continue;
    if (model.gpuClass !== undefined && cls !== model.gpuClass) continue;
    if (!gate.allows(cap, cls)) continue;
    const key = `${cap.node.fabric}\u0000${cls}`;
    let pool = pools.get(key);
    if (!pool) {
      pool = { fabric: cap.node.fabric, cls, fabricHolds: fabricHolds(ctx.fleet, cap.node.fabric, model.weights), nodes: [], holders: 0, next: 0 };
      pools.set(key, pool);
    }
    pool.nodes.push(cap);
  }
  for (const pool of pools.values()) {
    const holds = (c: NodeCapacity) => (c.node.holds.has(model.weights) ? 0 : 1);
    pool.nodes.sort((a, b) => holds(a) - holds(b) || a.order - b.order);
    pool.holders = pool.nodes.filter((c) => holds(c) === 0).length;
  }
  return [...pools.values()];
}

function better(a: Pool, b: Pool, k: number, used: ReadonlyMap<string, number> | null): boolean {
  // spread: fabric — a fabric without a replica of the model first, where one has room.
  if (used !== null) {
    const ua = (used.get(a.fabric) ?? 0) > 0;
    const ub = (used.get(b.fabric) ?? 0) > 0;
    if (ua !== ub) return ub;
  }
  const ha = Math.min(k, Math.max(0, a.holders - a.next));
  const hb = Math.min(k, Math.max(0, b.holders - b.next));
  if (ha !== hb) return ha > hb;
  if (a.fabricHolds !== b.fabricHolds) return a.fabricHolds;
  const fa = a.nodes.length - a.next;
  const fb = b.nodes.length - b.next;
  if (fa !== fb) return fa < fb;
  if (a.fabric !== b.fabric) return compareNames(a.fabric, b.fabric) < 0;
  return compareNames(a.cls, b.cls) < 0;
}

export function placeMultiNode(model: ModelConfig, count: number, ctx: PlaceContext): PlaceResult {
  const k = model.nodes;
  const gate = fitGate(model, ctx.fit);
  const pools = poolsFor(model, ctx, gate);
  // Whole nodes already keep replicas apart by node; `fabric` asks for fabrics of their own too.
  const used = (model.spread ?? MODEL_FIT_DEFAULTS.spread) === 'fabric' ? fabricCounts(model.name, ctx) : null;
  const basePort = basePortOf(model, ctx.fleet);
  const placed: Placed[] = [];
  while (placed.length < count) {
    let best: Pool | null = null;
    for (const pool of pools) {
      if (pool.nodes.length - pool.next < k) continue;
      if (best === null || better(pool, best, k, used)) best = pool;
    }
    if (best === null) return { placed, reason: gate.reason() ?? multiNodeReason(model, ctx) };
    const chosen = best.nodes.slice(best.next, best.next + k);
    best.next += k;
    const port = lowestCommonPort(chosen, basePort);
    const placement = chosen.map((cap) => ({
      node: cap.node.name,
      gpus: takeGpus(ctx.capacity, cap, best.cls, model.gpus, model.name, port),
    }));
    const allHold = chosen.every((c) => c.node.holds.has(model.weights));
    const weights: WeightsLocality = allHold ? 'node' : best.fabricHolds ? 'fabric' : 'none';
    used?.set(best.fabric, (used.get(best.fabric) ?? 0) + 1);
    placed.push({ placement, port, weights });
  }
  return { placed, reason: null };
}
