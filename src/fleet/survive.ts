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
function serves(r: FleetReplica): boolean {
  return !r.lost && r.state !== 'failed' && !r.draining;
}

/** One node's free GPUs per class (and whether it is a free whole node): read once, then divided per shape. */
interface NodeFree {
  name: string;
  fabric: string;
  byClass: [string, number][];
  whole: string | null;
  gpuCount: number;
}

interface Tally {
  total: number;
  byFabric: Map<string, number>;
  /** Multi-node shapes: free whole nodes per fabric. */
  wholeByFabric: Map<string, number>;
}

/**
 * How many replicas of a shape the free GPUs outside one domain could hold:
 * per node, as many as its free GPUs of one class allow (whole nodes of one
 * fabric for a multi-node one). Totals per fabric are subtracted from the
 * fleet's, and a lost node's own share is worked out for that node alone, so
 * each shape costs one pass over the nodes with room and no map per node.
 */
class Room {
  private readonly memo = new Map<string, Tally>();
  private readonly free: NodeFree[] = [];
  private readonly freeByName = new Map<string, NodeFree>();
  private readonly fabricOf: ReadonlyMap<string, string>;

  constructor(nodes: readonly FleetNode[], fabricOf: ReadonlyMap<string, string>) {
    this.fabricOf = fabricOf;
    for (const node of nodes) {
      let byClass: [string, number][] | null = null;
      for (const g of node.gpus) {
        if (g.bucket !== 'free') continue;
        byClass ??= [];
        const entry = byClass.find(([c]) => c === g.class);
        if (entry) entry[1]++;
        else byClass.push([g.class, 1]);
      }
      if (byClass === null) continue;
      const free: NodeFree = { name: node.name, fabric: node.fabric, byClass, whole: node.freeWholeClass, gpuCount: node.gpus.length };
      this.free.push(free);
      this.freeByName.set(node.name, free);
    }
  }

  outside(model: ModelConfig, domain: 'node' | 'fabric', name: string): number {
    const key = `${model.gpuClass ?? '\u0000'}/${model.gpus}/${model.nodes}`;
    let t = this.memo.get(key);
    if (!t) this.memo.set(key, (t = this.tally(model)));
    if (domain === 'fabric') return t.total - (t.byFabric.get(name) ?? 0);
    const node = this.freeByName.get(name);
    if (node === undefined) return t.total;
    if (model.nodes === 1) return t.total - this.here(model, node);
    // A multi-node replica: the lost node's fabric has one whole node fewer.
    if (!this.whole(model, node)) return t.total;
    const fabric = this.fabricOf.get(name) ?? '';
    return t.total - (t.byFabric.get(fabric) ?? 0) + Math.floor(((t.wholeByFabric.get(fabric) ?? 0) - 1) / model.nodes);
  }

  /** Replicas of a one-node shape this node's free GPUs could hold. */
  private here(model: ModelConfig, node: NodeFree): number {
    let here = 0;
    for (const [cls, n] of node.byClass) if (model.gpuClass === undefined || cls === model.gpuClass) here += Math.floor(n / model.gpus);
    return here;
  }

  /** Whether this node is a free whole node a rank of a multi-node shape could take. */
  private whole(model: ModelConfig, node: NodeFree): boolean {
    const cls = node.whole;
    return cls !== null && node.gpuCount >= model.gpus && (model.gpuClass === undefined || cls === model.gpuClass);
  }

  private tally(model: ModelConfig): Tally {
    const t: Tally = { total: 0, byFabric: new Map(), wholeByFabric: new Map() };
    for (const node of this.free) {
      if (model.nodes > 1) {
        if (this.whole(model, node)) t.wholeByFabric.set(node.fabric, (t.wholeByFabric.get(node.fabric) ?? 0) + 1);
        continue;
      }
      const here = this.here(model, node);
      if (here === 0) continue;
      t.byFabric.set(node.fabric, (t.byFabric.get(node.fabric) ?? 0) + here);
      t.total += here;
    }
    for (const [f, n] of t.wholeByFabric) {
      const groups = Math.floor(n / model.nodes);
      t.byFabric.set(f, groups);
      t.total += groups;
    }
    return t;
  }
}

/**
 * One pass over the replicas: for each model, how many of its replicas each
 * node (fabric) holds, keyed by number (model index × domains + domain index)
 * so a 20,000-node fleet costs no string keys per replica.
 */
// Dense arrays indexed within their bounds (sized from models and names just above): `!` says so where the type cannot.
/* eslint-disable @typescript-eslint/no-non-null-assertion */
function domainOf(fleet: Fleet, domain: 'node' | 'fabric', room: Room, fabricOf: ReadonlyMap<string, string>): SurviveDomain {
  const names: string[] = [];
  const index = new Map<string, number>();
  const indexOf = (d: string): number => {
    let i = index.get(d);
    if (i === undefined) {
      index.set(d, (i = names.length));
      names.push(d);
    }
    return i;
  };
  const nodeIndex = new Map<string, number>();
  for (const n of fleet.nodes) nodeIndex.set(n.name, indexOf(domain === 'node' ? n.name : n.fabric));
  const domainIndex = (node: string): number => nodeIndex.get(node) ?? indexOf(domain === 'node' ? node : (fabricOf.get(node) ?? ''));
  const models = [...fleet.config.models].sort((a, b) => cmp(a.name, b.name));
  const modelIndex = new Map(models.map((m, i) => [m.name, i]));
  const from = new Array<number>(models.length).fill(0);
  const counts = new Map<number, number>();
  const width = fleet.nodes.length + 1024;
  for (const r of fleet.replicas) {
    const mi = modelIndex.get(r.model);
    if (mi === undefined || !serves(r)) continue;
    from[mi]!++;
    // Distinct domains of its ranks: a replica is lost once with a domain, however many ranks it has there.
    // Most replicas have one rank: no array or set for them.
    if (r.nodes.length === 1) {
      const k = mi * width + domainIndex(r.nodes[0] ?? '');
      counts.set(k, (counts.get(k) ?? 0) + 1);
      continue;
    }
    for (const d of new Set(r.nodes.map(domainIndex))) counts.set(mi * width + d, (counts.get(mi * width + d) ?? 0) + 1);
  }
  const worstCount = new Array<number>(models.length).fill(0);
  const worstAt = new Array<number>(models.length).fill(-1);
  const inAll = new Array<number>(names.length + 1024).fill(0);
  for (const [k, n] of counts) {
    const mi = Math.floor(k / width);
    const d = k - mi * width;
    inAll[d] = (inAll[d] ?? 0) + n;
    if (n > worstCount[mi]! || (n === worstCount[mi]! && worstAt[mi]! >= 0 && cmp(names[d]!, names[worstAt[mi]!]!) < 0)) {
      worstCount[mi] = n;
      worstAt[mi] = d;
    }
  }
  const out: Record<string, SurviveModel> = {};
  models.forEach((model, mi) => {
    const lost = worstCount[mi]!;
    const worst = worstAt[mi]! >= 0 ? names[worstAt[mi]!]! : null;
    const roomToReplace = worst === null || room.outside(model, domain, worst) >= lost;
    out[model.name] = { from: from[mi]!, to: from[mi]! - lost, worst, roomToReplace };
  });
  let top: number | null = null;
  for (let d = 0; d < names.length; d++) {
    const n = inAll[d] ?? 0;
    if (n > 0 && (top === null || n > inAll[top]! || (n === inAll[top]! && cmp(names[d]!, names[top]!) < 0))) top = d;
  }
  return { worst: top === null ? null : names[top]!, models: out };
}
/* eslint-enable @typescript-eslint/no-non-null-assertion */

export function surviveReport(fleet: Fleet): SurviveReport {
  const fabricOf = new Map(fleet.nodes.map((n) => [n.name, n.fabric]));
  const room = new Room(fleet.nodes, fabricOf);
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
      const s = report[domain].models[model.name];
      if (!s) continue; // domainOf reports every model of the config
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
