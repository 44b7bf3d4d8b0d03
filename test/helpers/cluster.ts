// A resolved ClusterConfig for unit tests that build fleets by hand: the
// defaults cluster.yaml would give, overridden by what the test cares about.

import type { ClusterConfig } from '../../src/types/config.js';

export function testCluster(parts: Partial<ClusterConfig> = {}): ClusterConfig {
  return {
    name: 'test',
    ssh: { user: 'llmgw', knownHosts: '/dev/null', port: 22, connectTimeoutMs: 1000, commandTimeoutMs: 1000, concurrency: 8 },
    agent: { command: 'llmgw agent' },
    router: { command: 'llmgw router' },
    fabrics: ['ib-a'],
    gpuClasses: [],
    nodes: [],
    routers: [],
    engines: {},
    notify: { webhooks: [] },
    idleAfterMs: 86_400_000,
    lostAfterMs: 600_000,
    safety: { maxStopFraction: 0.5, minReachableFraction: 0.5 },
    git: { timeoutMs: 60_000 },
    ...parts,
  };
}
