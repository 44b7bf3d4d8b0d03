// The fake GPUs of a simulated fleet's nodes. A cluster.yaml names GPU
// classes but (being a config, not an inventory) not which node has which:
// - examples/demo: the first fabric's nodes get eight H100s, every other
//   fabric's eight H200s, which is what its models were written for;
// - one's own config (`llmgw demo --repo DIR`): a node the committed
//   snapshot has seen gets the GPUs it reported (a broken card stays broken);
//   any other gets eight (or a model's `gpus`, if more) of a class its models
//   ask for (`gpuClass`): one class per fabric in turn, or node by node when
//   there are fewer fabrics than classes; named so `gpuClasses` maps it back.

import { gpuClassOf } from '../config/gpu-class.js';
import type { FakeGpu } from '../sim/fake-nvidia-smi.js';
import type { ClusterConfig, Config, NodeConfig } from '../types/config.js';
import type { Snapshot } from '../types/snapshot.js';

const H100: FakeGpu = { name: 'NVIDIA H100 80GB HBM3', memoryMiB: 81559 };
const H200: FakeGpu = { name: 'NVIDIA H200', memoryMiB: 143771 };

/** At most this many GPUs per simulated node, whatever a report claimed. */
const MAX_GPUS = 64;

function uuid(node: string, i: number): string {
  return `GPU-${node}-${i}`.replace(/[^A-Za-z0-9-]/g, '-');
}

function eight(node: string, gpu: FakeGpu, count = 8): FakeGpu[] {
  return Array.from({ length: count }, (_, i) => ({ ...gpu, uuid: uuid(node, i) }));
}

export function demoGpus(cluster: ClusterConfig, node: NodeConfig): FakeGpu[] {
  return eight(node.name, cluster.fabrics.indexOf(node.fabric) <= 0 ? H100 : H200);
}

export type Hardware = (node: NodeConfig) => FakeGpu[];

/** A product name whose class, through cluster.yaml's gpuClasses, is `cls`. */
export function productFor(cls: string, config: Config): string {
  const rule = config.cluster.gpuClasses.find((r) => r.name === cls);
  const candidates = [rule ? rule.glob.replace(/\*/g, '').replace(/\?/g, 'X') : null, `NVIDIA ${cls}`].filter((x): x is string => x !== null);
  return candidates.find((name) => gpuClassOf(name, config.cluster.gpuClasses) === cls) ?? `NVIDIA ${cls}`;
}

/** The hardware of one's own config: what the snapshot saw, else classes the models ask for. */
export function hardwareFor(config: Config, snapshot: Snapshot | null): Hardware {
  const seen = new Map<string, FakeGpu[]>();
  for (const obs of snapshot?.nodes ?? []) {
    const report = obs.reachable ? obs.report : obs.lastReport;
    if (!report || report.gpus.length === 0) continue;
    const gpus = [...report.gpus].sort((a, b) => a.index - b.index).slice(0, MAX_GPUS);
    seen.set(
      obs.name,
      gpus.map((g, i) => ({ name: g.name, memoryMiB: g.memoryMiB, uuid: uuid(obs.name, i), ...(g.healthy ? {} : { unhealthy: 'ecc' as const }) })),
    );
  }
  const wanted = [...new Set(config.models.map((m) => m.gpuClass).filter((c): c is string => c !== undefined))];
  const perNode = Math.min(MAX_GPUS, Math.max(8, ...config.models.map((m) => m.gpus)));
  const fabrics = config.cluster.fabrics;
  // Fewer fabrics than classes: classes take turns node by node inside each fabric instead.
  const byFabric = fabrics.length >= wanted.length;
  const place = new Map<string, number>();
  const count = new Map<string, number>();
  for (const n of config.cluster.nodes) {
    place.set(n.name, count.get(n.fabric) ?? 0);
    count.set(n.fabric, (count.get(n.fabric) ?? 0) + 1);
  }
  return (node) => {
    const known = seen.get(node.name);
    if (known) return known;
    const turn = byFabric ? Math.max(0, fabrics.indexOf(node.fabric)) : (place.get(node.name) ?? 0);
    const cls = wanted[turn % wanted.length];
    if (cls === undefined) return eight(node.name, fabrics.indexOf(node.fabric) <= 0 ? H100 : H200, perNode);
    return eight(node.name, { name: productFor(cls, config), memoryMiB: 81559 }, perNode);
  };
}
