// The snapshot the projection tests (plan/project-fleet*) plan on: three 8-GPU
// nodes, of which a1 runs old-0 on GPU 0, a2 runs nothing, and a3 has been
// unreachable for a minute and last ran x-0.

import type { AgentReport, Snapshot } from '../../src/types/snapshot.js';
import { NOW, gpus, report } from '../fixtures/index.js';

/** An agent report of 8 GPUs and `replicas`. */
export const eightGpus = (replicas: AgentReport['replicas']): AgentReport => report(gpus(8), replicas);

export function projectionSnapshot(): Snapshot {
  return {
    version: 1,
    observedAt: NOW,
    nodes: [
      { name: 'a1', reachable: true, report: eightGpus([{ id: 'old-0', model: 'old', gpus: [0], state: 'running', port: 8000 }]) },
      { name: 'a2', reachable: true, report: eightGpus([]) },
      {
        name: 'a3',
        reachable: false,
        error: 'timeout',
        unreachableSince: '2026-11-29T07:59:00Z',
        lastReport: eightGpus([{ id: 'x-0', model: 'x', gpus: [0], state: 'running', port: 8000 }]),
      },
    ],
    routers: [],
  };
}
