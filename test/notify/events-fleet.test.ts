// detectEvents on fleets built by the real fleet model from the demo config,
// so the conditions it reads mean what docs/placement.md says they mean.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../../src/config/load-config.js';
import { buildFleet } from '../../src/fleet/index.js';
import { detectEvents } from '../../src/notify/events.js';
import { emptyState, type State } from '../../src/types/state.js';
import type { AgentReport, Snapshot } from '../../src/types/snapshot.js';
import type { Config } from '../../src/types/config.js';

const gpus = Array.from({ length: 8 }, (_, index) => ({ index, name: 'NVIDIA H100 80GB HBM3', healthy: true }));
const report = (replicas: AgentReport['replicas']): AgentReport => ({ version: 1, gpus, replicas, storage: [], warnings: [] });
const qwen = { id: 'qwen2.5-72b-0', model: 'qwen2.5-72b', gpus: [0, 1, 2, 3], state: 'running' as const, startedAt: '2026-11-29T07:00:00Z', port: 8000 };
const NODES = ['gpu-a01', 'gpu-a02', 'gpu-a03', 'gpu-a04', 'gpu-b01', 'gpu-b02', 'gpu-b03', 'gpu-b04'];

function snapshot(observedAt: string, a01: 'up' | 'down'): Snapshot {
  return {
    version: 1,
    observedAt,
    nodes: NODES.map((name) =>
      name === 'gpu-a01' && a01 === 'down'
        ? { name, reachable: false as const, error: 'connect ETIMEDOUT', unreachableSince: '2026-11-29T08:00:00Z', lastReport: report([qwen]) }
        : { name, reachable: true as const, report: report(name === 'gpu-a01' ? [qwen] : []) },
    ),
    routers: [],
  };
}

let config: Config;
test.before(async () => {
  const loaded = await loadConfig('examples/demo', { env: { HOME: '/home/llmgw', USER: 'llmgw' } });
  if (!loaded.ok) throw new Error('demo config invalid');
  config = loaded.config;
});

function tick(prev: State, snap: Snapshot, now: string) {
  const fleet = buildFleet(config, snap, prev, now);
  return detectEvents(prev, { cluster: config.cluster.name, fleet, plan: null, applyFailures: [], configErrors: null, now });
}

test('a node past lostAfter fires node.lost once, and its only replica going with it fires model.down', () => {
  const t1 = tick(emptyState(), snapshot('2026-11-29T07:55:00Z', 'up'), '2026-11-29T07:55:00Z');
  assert.equal(t1.events, []);
  assert.equal(t1.state.everRunning, ['qwen2.5-72b']);
  const t2 = tick(t1.state, snapshot('2026-11-29T08:05:00Z', 'down'), '2026-11-29T08:05:00Z');
  assert.equal(
    t2.events.map((e) => e.event),
    [],
    'unreachable for 5 minutes, lostAfter 10m: not lost, its replica still counts',
  );
  const t3 = tick(t2.state, snapshot('2026-11-29T08:11:00Z', 'down'), '2026-11-29T08:11:00Z');
  assert.equal(
    t3.events.map((e) => `${e.event} ${e.subject}`),
    ['node.lost gpu-a01', 'model.down qwen2.5-72b'],
  );
  assert.equal(
    t3.events.map((e) => e.cluster),
    ['demo', 'demo'],
  );
  const t4 = tick(t3.state, snapshot('2026-11-29T08:16:00Z', 'down'), '2026-11-29T08:16:00Z');
  assert.equal(t4.events, []);
  const t5 = tick(t4.state, snapshot('2026-11-29T08:20:00Z', 'up'), '2026-11-29T08:20:00Z');
  assert.equal(
    t5.events.map((e) => `${e.event} ${e.subject}`),
    ['node.recovered gpu-a01', 'model.recovered qwen2.5-72b'],
  );
  assert.equal(t5.state.notified, {});
});

test.run();
