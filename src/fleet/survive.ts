// Survive (docs/placement.md#survive): what the loss of each single node and of
// each fabric would leave of every model, for the fleet as the tick leaves it.
// A count over where replicas are, not a re-plan per failure: each replica adds
// one to every node (and fabric) it has a rank on, so the whole answer costs
// O(replicas + nodes). `to` is what keeps serving at once, before any
// replacement; `roomToReplace` says whether the free GPUs that remain could
// take the lost replicas, counted per node (a one-node replica needs its GPUs
// on one node) but not placed.

import { MODEL_FIT_DEFAULTS, type ModelConfig, type Spread } from '../types/config.js';
import type { Fleet, FleetNode, FleetReplica } from '../types/fleet.js';

export interface SurviveModel {
  /** Replicas the model has as the tick leaves the fleet. */
  from: number;
  /** Left running elsewhere at once when its worst node (fabric) is lost. */
  to: number;
  /** The node (fabric) whose loss leaves it the fewest; null when it has no replica. */
  worst: string | null;
  /** Whether the free GPUs of its class that remain could hold the replicas lost there. */
  roomToReplace: boolean;
}

export interface SurviveDomain {
  /** The node (fabric) whose loss leaves the fewest replicas in all; null when nothing runs. */
  worst: string | null;
  models: Record<string, SurviveModel>;
}

/** status and plan JSON `survive`. */
export interface SurviveReport {
  node: SurviveDomain;
  fabric: SurviveDomain;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Replicas that serve, or will once started: not gone, not failed, not on their way out. */
function counts(r: FleetReplica): boolean {
  return !r.lost && r.state !== 'failed' && !r.draining;
}

/** The key with the highest count, ties to the lowest name; null when empty. */
function most(m: ReadonlyMap<string, number>): [string, number] | null {
  let best: [string, number] | null = null;
  for (const [k, n] of m) if (best === null || n > best[1] || (n === best[1] && cmp(k, best[0]) < 0)) best = [k, n];
  return best;
}

/**
 * How many replicas of a shape the free GPUs outside one domain could hold:
 * per node, as many as its free GPUs of one class allow (whole nodes per
 * fabric for a multi-node one). Totals per domain are subtracted from the
 * fleet's, so each shape costs one pass over the nodes.
 */
class Room {
  private readonly memo = new Map<string, { total: number; byNode: Map<string, number>; byFabric: Map<string, number> }>();

  constructor(private readonly nodes: readonly FleetNode[]) {}

  outside(model: ModelConfig, domain: 'node' | 'fabric', name: string): number {
    const key = `${model.gpuClass ?? '\u0000'}/${model.gpus}/${model.nodes}`;
    let t = this.memo.get(key);
    if (!t) this.memo.set(key, (t = this.tally(model)));
    if (model.nodes > 1) {
      // Whole nodes of one fabric: a fabric's k-groups, the lost node's fabric one node short.
      return domain === 'fabric' ? t.total - (t.byFabric.get(name) ?? 0) : this.wholeWithout(model, t, name);
    }
    return t.total - ((domain === 'node' ? t.byNode : t.byFabric).get(name) ?? 0);
  }

  private tally(model: ModelConfig) {
    const byNode = new Map<string, number>();
    const byFabric = new Map<string, number>();
    const wholeByFabric = new Map<string, number>();
    let total = 0;
    for (const node of this.nodes) {
      if (model.nodes > 1) {
        const cls = node.freeWholeClass;
        if (cls === null || node.gpus.length < model.gpus || (model.gpuClass !== undefined && cls !== model.gpuClass)) continue;
        byNode.set(node.name, 1);
        wholeByFabric.set(node.fabric, (wholeByFabric.get(node.fabric) ?? 0) + 1);
        continue;
      }
      const free = new Map<string, number>();
      for (const g of node.gpus)
        if (g.bucket === 'free' && (model.gpuClass === undefined || g.class === model.gpuClass)) free.set(g.class, (free.get(g.class) ?? 0) + 1);
      let here = 0;
      for (const n of free.values()) here += Math.floor(n / model.gpus);
      if (here === 0) continue;
      byNode.set(node.name, here);
      byFabric.set(node.fabric, (byFabric.get(node.fabric) ?? 0) + here);
      total += here;
    }
    if (model.nodes > 1) {
      for (const [f, n] of wholeByFabric) {
        const groups = Math.floor(n / model.nodes);
        byFabric.set(f, groups);
        total += groups;
      }
      // Kept for wholeWithout: the fabric's whole-node count, under a key no fabric name has.
      for (const [f, n] of wholeByFabric) byFabric.set(`\u0000${f}`, n);
    }
    return { total, byNode, byFabric };
  }

  private wholeWithout(model: ModelConfig, t: { total: number; byNode: Map<string, number>; byFabric: Map<string, number> }, node: string): number {
    if (!t.byNode.has(node)) return t.total;
    const fabric = this.nodes.find((n) => n.name === node)!.fabric;
    const whole = t.byFabric.get(`\u0000${fabric}`) ?? 0;
    return t.total - (t.byFabric.get(fabric) ?? 0) + Math.floor((whole - 1) / model.nodes);
  }
}

function domainOf(fleet: Fleet, domain: 'node' | 'fabric', room: Room, fabricOf: ReadonlyMap<string, string>): SurviveDomain {
  const key = (node: string) => (domain === 'node' ? node : (fabricOf.get(node) ?? ''));
  const perModel = new Map<string, Map<string, number>>();
  const from = new Map<string, number>();
  const inAll = new Map<string, number>();
  const desired = new Set(fleet.config.models.map((m) => m.name));
  for (const r of fleet.replicas) {
    if (!counts(r) || !desired.has(r.model)) continue;
    from.set(r.model, (from.get(r.model) ?? 0) + 1);
    const where = new Set(r.nodes.map(key));
    let m = perModel.get(r.model);
    if (!m) perModel.set(r.model, (m = new Map()));
    for (const d of where) {
      m.set(d, (m.get(d) ?? 0) + 1);
      inAll.set(d, (inAll.get(d) ?? 0) + 1);
    }
  }
  const models: Record<string, SurviveModel> = {};
  for (const model of [...fleet.config.models].sort((a, b) => cmp(a.name, b.name))) {
    const n = from.get(model.name) ?? 0;
    const worst = most(perModel.get(model.name) ?? new Map());
    const lost = worst?.[1] ?? 0;
    const roomToReplace = lost === 0 || room.outside(model, domain, worst![0]) >= lost;
    models[model.name] = { from: n, to: n - lost, worst: worst?.[0] ?? null, roomToReplace };
  }
  return { worst: most(inAll)?.[0] ?? null, models };
}

export function surviveReport(fleet: Fleet): SurviveReport {
  const room = new Room(fleet.nodes);
  const fabricOf = new Map(fleet.nodes.map((n) => [n.name, n.fabric]));
  return { node: domainOf(fleet, 'node', room, fabricOf), fabric: domainOf(fleet, 'fabric', room, fabricOf) };
}

/** The domains a model's `survive:` asks it to outlive. */
function asked(survive: Spread): ('node' | 'fabric')[] {
  return survive === 'fabric' ? ['fabric'] : survive === 'node' ? ['node'] : [];
}

/**
 * One sentence per model whose `survive:` the fleet as the tick leaves it
 * breaks: the loss of its worst node (fabric) would leave no replica running.
 */
export function surviveWarnings(fleet: Fleet, report: SurviveReport): string[] {
  const out: string[] = [];
  for (const model of [...fleet.config.models].sort((a, b) => cmp(a.name, b.name))) {
    const survive = model.survive ?? MODEL_FIT_DEFAULTS.survive;
    if (model.replicas === 0) continue;
    for (const domain of asked(survive)) {
      const s = report[domain].models[model.name]!;
      if (s.to > 0) continue;
      const replicas = s.from === 1 ? '1 replica' : `${s.from} replicas`;
      out.push(
        s.worst === null
          ? `model '${model.name}' has no replica, so it survives no ${domain} loss (models.yaml survive: ${survive})`
          : `model '${model.name}' does not survive the loss of ${domain} ${s.worst}: all its ${replicas} run there (models.yaml survive: ${survive})`,
      );
    }
  }
  return out;
}
