// What is free for this plan's placements: the fleet as observed, minus
// cordoned and unreachable nodes, plus the GPUs and ports of replicas this plan
// stops without waiting (docs/placement.md step 2). Replicas replaced with surge keep
// theirs until their successor runs. Placement changes it one replica at a time.

import type { Fleet, FleetNode } from '../types/fleet.js';
import { compareNames } from './replica-ids.js';

export interface NodeCapacity {
  /** Position in the fleet's name order: comparing it compares names. */
  order: number;
  node: FleetNode;
  /** Class -> free healthy GPU indices, ascending. Only classes with some free GPU. */
  free: Map<string, number[]>;
  /** Class -> the smallest memory of its GPUs here, where reported: what the fit rule judges the node by. */
  memoryMiB: Map<string, number>;
  /** Every GPU healthy and of one class: that class, else null. */
  uniformClass: string | null;
  gpuCount: number;
  /** Replicas staying on the node, plus those this plan places there. */
  replicaCount: number;
  /** model -> replicas of it staying or placed here. */
  modelCount: Map<string, number>;
  ports: Set<number>;
}

export interface Capacity {
  /** Only reachable, uncordoned nodes: nothing new lands anywhere else. In name order. */
  nodes: NodeCapacity[];
  byName: Map<string, NodeCapacity>;
  /** Fabric names, sorted. */
  fabrics: string[];
  /**
   * class -> free count -> nodes with exactly that many free GPUs of the class,
   * so a model needing g GPUs looks only at nodes that have them (in any order:
   * placement ranks candidates itself).
   */
  byFree: Map<string, Set<NodeCapacity>[]>;
}

function bucket(capacity: Capacity, cls: string, count: number): Set<NodeCapacity> {
  let buckets = capacity.byFree.get(cls);
  if (!buckets) capacity.byFree.set(cls, (buckets = []));
  const found = buckets[count];
  if (found) return found;
  let added = new Set<NodeCapacity>();
  while (buckets.length <= count) buckets.push((added = new Set()));
  return added;
}

/** Every node with at least `count` free GPUs of the class. */
export function* nodesWithFree(capacity: Capacity, cls: string, count: number): Iterable<NodeCapacity> {
  const buckets = capacity.byFree.get(cls) ?? [];
  for (const b of buckets.slice(Math.max(count, 1))) yield* b;
}

function uniformClassOf(node: FleetNode): string | null {
  const first = node.gpus[0];
  if (!first) return null;
  for (const gpu of node.gpus) if (!gpu.healthy || gpu.class !== first.class) return null;
  return first.class;
}

export function buildCapacity(fleet: Fleet, freed: ReadonlySet<string>, failedPorts: (node: string) => ReadonlySet<number> = () => new Set()): Capacity {
  const nodes: NodeCapacity[] = [];
  const byName = new Map<string, NodeCapacity>();
  const fabricSet = new Set<string>(fleet.config.cluster.fabrics);
  // The fleet lists nodes by name already; sorting again costs little and makes
  // the plan independent of any order a caller hands in.
  const sorted = [...fleet.nodes].sort((a, b) => compareNames(a.name, b.name));
  sorted.forEach((node, order) => {
    fabricSet.add(node.fabric);
    // A node Slurm keeps llmgw off (docs/slurm.md) takes nothing new either; its replicas stay.
    if (node.condition !== 'reachable' || node.cordoned || node.slurm?.condition !== undefined) return;
    const free = new Map<string, number[]>();
    const memoryMiB = new Map<string, number>();
    for (const gpu of node.gpus) {
      if (gpu.memoryMiB !== undefined) memoryMiB.set(gpu.class, Math.min(gpu.memoryMiB, memoryMiB.get(gpu.class) ?? Infinity));
      // A GPU this plan frees is room unless someone else's processes are on it too: then it becomes `other`.
      const released = gpu.replica !== null && freed.has(gpu.replica) && (gpu.foreign ?? 0) === 0 && gpu.slurmHeld !== true;
      if (!gpu.healthy || !(gpu.bucket === 'free' || released)) continue;
      const list = free.get(gpu.class);
      if (list) list.push(gpu.index);
      else free.set(gpu.class, [gpu.index]);
    }
    for (const list of free.values()) list.sort((a, b) => a - b);
    const ports = new Set(node.usedPorts);
    const modelCount = new Map<string, number>();
    let replicaCount = 0;
    for (const id of node.replicas) {
      const replica = fleet.replicaById.get(id);
      if (freed.has(id)) {
        if (replica?.port != null) ports.delete(replica.port);
        continue;
      }
      replicaCount++;
      if (replica) modelCount.set(replica.model, (modelCount.get(replica.model) ?? 0) + 1);
    }
    // A port freed above may still be another staying replica's.
    for (const id of node.replicas) {
      const port = freed.has(id) ? null : fleet.replicaById.get(id)?.port;
      if (port != null) ports.add(port);
    }
    // A port a start just failed on here may be held by something llmgw does not know of.
    for (const port of failedPorts(node.name)) ports.add(port);
    const cap: NodeCapacity = {
      order,
      node,
      free,
      memoryMiB,
      uniformClass: uniformClassOf(node),
      gpuCount: node.gpus.length,
      replicaCount,
      modelCount,
      ports,
    };
    nodes.push(cap);
    byName.set(node.name, cap);
  });
  const capacity: Capacity = { nodes, byName, fabrics: [...fabricSet].sort(compareNames), byFree: new Map() };
  for (const cap of nodes) for (const [cls, list] of cap.free) bucket(capacity, cls, list.length).add(cap);
  return capacity;
}

/** A free whole node (docs/placement.md) for this plan: its class, else null. */
export function wholeClass(cap: NodeCapacity): string | null {
  if (cap.replicaCount > 0 || cap.uniformClass === null) return null;
  return cap.free.get(cap.uniformClass)?.length === cap.gpuCount ? cap.uniformClass : null;
}

/** Take the lowest `count` free indices of a class on a node and record the replica there. */
export function takeGpus(capacity: Capacity, cap: NodeCapacity, cls: string, count: number, model: string, port: number): number[] {
  const list = cap.free.get(cls) ?? [];
  bucket(capacity, cls, list.length).delete(cap);
  const taken = list.splice(0, count);
  if (list.length === 0) cap.free.delete(cls);
  else bucket(capacity, cls, list.length).add(cap);
  cap.replicaCount++;
  cap.modelCount.set(model, (cap.modelCount.get(model) ?? 0) + 1);
  cap.ports.add(port);
  return taken;
}

/** The lowest port from `basePort` free on every one of the nodes. */
export function lowestCommonPort(caps: NodeCapacity[], basePort: number): number {
  let port = basePort;
  while (caps.some((c) => c.ports.has(port))) port++;
  return port;
}
