// The fake GPUs of the demo's simulated nodes. examples/demo names GPU classes
// but (being a config, not an inventory) not which node has which: here the
// first fabric's nodes get eight H100s and every other fabric's eight H200s,
// which is what the example's models were written for.

import type { FakeGpu } from '../sim/fake-nvidia-smi.js';
import type { ClusterConfig, NodeConfig } from '../types/config.js';

const H100: FakeGpu = { name: 'NVIDIA H100 80GB HBM3', memoryMiB: 81559 };
const H200: FakeGpu = { name: 'NVIDIA H200', memoryMiB: 143771 };

export function demoGpus(cluster: ClusterConfig, node: NodeConfig): FakeGpu[] {
  const gpu = cluster.fabrics.indexOf(node.fabric) <= 0 ? H100 : H200;
  return Array.from({ length: 8 }, (_, i) => ({
    ...gpu,
    uuid: `GPU-${node.name}-${i}`.replace(/[^A-Za-z0-9-]/g, '-'),
  }));
}
