// One-node replicas (docs/placement.md step 3): a reachable, uncordoned node with
// enough free healthy GPUs of the class, chosen by (a) no recent start failure
// of this model there, (b) weights tier, (c) fewer replicas of the model there
// (spread), (d) best fit, (e) name. A class the model does not fit (the fit
// rule) is never a candidate.
//
// Spread (models.yaml `spread`, docs/placement.md#spread): with `node` (the
// default) a node without a replica of the model beats every node with one,
// whatever the weights tier: a second replica on the node that holds the
// weights dies with that node, while fetching the weights costs minutes once.
// `fabric` also prefers a fabric without one. `none` keeps the old order, the
// weights tier first. Candidates sit in a heap built once per model; a
// placement changes one node (and, with `fabric`, the standing of its fabric),
// and keys only get worse, so a stale entry is refreshed when it surfaces.

import { MODEL_FIT_DEFAULTS, type ModelConfig } from '../types/config.js';
import type { NodeCapacity } from './capacity.js';
import { lowestCommonPort, nodesWithFree, takeGpus } from './capacity.js';
import { MinHeap } from './heap.js';
import type { PlaceContext, PlaceResult, Placed } from './place-context.js';
import { basePortOf, fabricCounts } from './place-context.js';
import { fitGate } from './place-fit.js';
import { oneNodeReason } from './unplaceable-reason.js';
import { TIER_RANK, weightsTier } from './weights-tier.js';
import type { WeightsLocality } from '../types/plan.js';

interface Candidate {
  cap: NodeCapacity;
  cls: string;
  failed: number;
  /** 1 when spread asks for a node of its own and this one has a replica of the model already. */
  doubled: number;
  /** 1 when spread asks for a fabric of its own and this node's fabric has a replica of the model already. */
  fabricUsed: number;
  tier: WeightsLocality;
  count: number;
  left: number;
}

function less(a: Candidate, b: Candidate): boolean {
  if (a.failed !== b.failed) return a.failed < b.failed;
  if (a.doubled !== b.doubled) return a.doubled < b.doubled;
  if (a.fabricUsed !== b.fabricUsed) return a.fabricUsed < b.fabricUsed;
  if (a.tier !== b.tier) return TIER_RANK[a.tier] < TIER_RANK[b.tier];
  if (a.count !== b.count) return a.count < b.count;
  if (a.left !== b.left) return a.left < b.left;
  if (a.cap.order !== b.cap.order) return a.cap.order < b.cap.order;
  return a.cls < b.cls;
}

export function placeOneNode(model: ModelConfig, count: number, ctx: PlaceContext): PlaceResult {
  const failures = ctx.recentFailures(model.name);
  const need = model.gpus;
  const gate = fitGate(model, ctx.fit);
  const spread = model.spread ?? MODEL_FIT_DEFAULTS.spread;
  const byFabric = spread === 'fabric' ? fabricCounts(model.name, ctx) : null;
  const candidate = (cap: NodeCapacity, cls: string): Candidate | null => {
    const free = cap.free.get(cls)?.length ?? 0;
    if (free < need || !gate.allows(cap, cls)) return null;
    const count = cap.modelCount.get(model.name) ?? 0;
    return {
      cap,
      cls,
      failed: failures.has(cap.node.name) ? 1 : 0,
      doubled: spread !== 'none' && count > 0 ? 1 : 0,
      fabricUsed: byFabric !== null && (byFabric.get(cap.node.fabric) ?? 0) > 0 ? 1 : 0,
      tier: weightsTier(ctx.fleet, cap.node, model.weights),
      count,
      left: free - need,
    };
  };
  const initial: Candidate[] = [];
  const classes = model.gpuClass !== undefined ? [model.gpuClass] : [...ctx.capacity.byFree.keys()];
  for (const cls of classes) {
    for (const cap of nodesWithFree(ctx.capacity, cls, need)) {
      const c = candidate(cap, cls);
      if (c) initial.push(c);
    }
  }
  const heap = new MinHeap(less, initial);
  const basePort = basePortOf(model, ctx.fleet);
  const placed: Placed[] = [];
  while (placed.length < count) {
    const best = heap.pop();
    if (!best) return { placed, reason: gate.reason() ?? oneNodeReason(model, ctx) };
    // A node offering several classes (to a model with no gpuClass) has one
    // entry per class; after a placement on one, the others are stale. Keys only
    // ever get worse, so a stale entry is refreshed when it surfaces.
    const fresh = candidate(best.cap, best.cls);
    if (!fresh) continue;
    if (fresh.count !== best.count || fresh.left !== best.left || fresh.fabricUsed !== best.fabricUsed) {
      heap.push(fresh);
      continue;
    }
    const port = lowestCommonPort([best.cap], basePort);
    const gpus = takeGpus(ctx.capacity, best.cap, best.cls, need, model.name, port);
    placed.push({ placement: [{ node: best.cap.node.name, gpus }], port, weights: best.tier });
    byFabric?.set(best.cap.node.fabric, (byFabric.get(best.cap.node.fabric) ?? 0) + 1);
    const again = candidate(best.cap, best.cls);
    if (again) heap.push(again);
  }
  return { placed, reason: null };
}
