// Reproducible snapshot fixtures for examples/demo and examples/large
// (`.llmgw/observed.json`): `node dist/test/status/make-observed.js` rewrites
// both from the examples' config. The demo is written by hand so every case of
// docs/placement.md shows; the large one is placed by the real planner on an empty
// fleet and then roughed up with a seeded random generator.

import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config/load-config.js';
import { buildFleet } from '../../src/fleet/index.js';
import { planFleet } from '../../src/plan/plan-fleet.js';
import { projectFleet, projectedSnapshot } from '../../src/plan/project-fleet.js';
import { expectedEffects } from '../../src/apply/schedule.js';
import { replicaSpec } from '../../src/plan/spec.js';
import type { Config } from '../../src/types/config.js';
import type { AgentReport, GpuReport, NodeObservation, ReplicaReport, Snapshot, StorageReport, UnreachableReason } from '../../src/types/snapshot.js';
import { emptyState } from '../../src/types/state.js';
import { stableJson, writeFileAtomic } from '../../src/util/fs.js';
import { defined } from '../helpers/defined.js';

export const OBSERVED_AT = '2026-11-29T08:00:00Z';
const H100 = 'NVIDIA H100 80GB HBM3';
const H200 = 'NVIDIA H200';
const A100 = 'NVIDIA A100-SXM4-80GB';

function eightGpus(name: string, node: string, unhealthy: number[] = []): GpuReport[] {
  return Array.from({ length: 8 }, (_, index) => ({
    index,
    uuid: `GPU-${node}-${index}`,
    name,
    memoryMiB: name === H200 ? 143771 : 81559,
    healthy: !unhealthy.includes(index),
    ...(unhealthy.includes(index) ? { reason: 'uncorrectable ECC errors' } : {}),
  }));
}

function agentReport(gpus: GpuReport[], replicas: ReplicaReport[], storage: StorageReport[]): AgentReport {
  return { version: 1, gpus, replicas, storage, warnings: [] };
}

function storageOf(config: Config, node: string, held: Record<string, string[]>): StorageReport[] {
  const decl = config.cluster.nodes.find((n) => n.name === node)!.storage;
  return decl.map((d) => ({ ...d, weights: [...(held[d.path] ?? [])].sort(), incomplete: [] }));
}

/** The demo: every distinction of docs/placement.md on eight nodes. */
export function demoSnapshot(config: Config): Snapshot {
  const model = (name: string) => config.models.find((m) => m.name === name)!;
  const spec = (name: string) => replicaSpec(model(name), defined(config.cluster.engines[model(name).engine], `engine ${model(name).engine}`));
  const host = (node: string) => config.cluster.nodes.find((n) => n.name === node)!.host;
  const rep = (id: string, node: string, gpus: number[], port: number, extra: Partial<ReplicaReport> = {}): ReplicaReport => {
    const m = id.replace(/-\d+$/, '');
    return { id, model: m, gpus, state: 'running', endpoint: `http://${host(node)}:${port}`, port, rank: 0, spec: spec(m), ...extra };
  };
  const W = Object.fromEntries(config.models.map((m) => [m.name, m.weights]));
  const lustre = [defined(W['llama-3.1-70b']), defined(W['llama-3.1-8b']), defined(W['mistral-7b'])];
  const up = (name: string, r: AgentReport): NodeObservation => ({ name, reachable: true, report: r });
  return {
    version: 1,
    observedAt: OBSERVED_AT,
    nodes: [
      up(
        'gpu-a01',
        agentReport(
          eightGpus(H100, 'gpu-a01'),
          [
            rep('llama-3.1-70b-0', 'gpu-a01', [0, 1, 2, 3], 8000, { startedAt: '2026-11-27T06:00:00Z' }),
            rep('qwen2.5-72b-0', 'gpu-a01', [4, 5, 6, 7], 8001, { startedAt: '2026-11-26T10:00:00Z' }),
          ],
          storageOf(config, 'gpu-a01', { '/models': [defined(W['llama-3.1-70b']), defined(W['qwen2.5-72b'])], '/lustre/models': lustre }),
        ),
      ),
      up(
        'gpu-a02',
        agentReport(
          eightGpus(H100, 'gpu-a02', [5]),
          [
            rep('llama-3.1-70b-1', 'gpu-a02', [0, 1, 2, 3], 8000, { startedAt: '2026-11-28T09:00:00Z' }),
            // Started by hand or an older agent: no start time, so its idleness is unknown.
            rep('llama-3.1-8b-0', 'gpu-a02', [4], 8001, { startedAt: undefined, spec: undefined }),
          ],
          storageOf(config, 'gpu-a02', { '/lustre/models': lustre }),
        ),
      ),
      up('gpu-a03', agentReport(eightGpus(H100, 'gpu-a03'), [], storageOf(config, 'gpu-a03', { '/lustre/models': lustre }))),
      {
        name: 'gpu-a04',
        reachable: false,
        error: 'gpu-a04: connect ETIMEDOUT',
        reason: 'timeout',
        unreachableSince: '2026-11-29T07:56:00Z',
        lastReport: agentReport(eightGpus(H100, 'gpu-a04'), [], storageOf(config, 'gpu-a04', { '/lustre/models': lustre })),
      },
      up(
        'gpu-b01',
        agentReport(
          eightGpus(H200, 'gpu-b01'),
          [rep('deepseek-v3-0', 'gpu-b01', [0, 1, 2, 3, 4, 5, 6, 7], 8000, { state: 'starting', startedAt: '2026-11-29T07:45:00Z' })],
          storageOf(config, 'gpu-b01', { '/models': [defined(W['deepseek-v3'])] }),
        ),
      ),
      up(
        'gpu-b02',
        agentReport(
          eightGpus(H200, 'gpu-b02'),
          [
            rep('deepseek-v3-0', 'gpu-b02', [0, 1, 2, 3, 4, 5, 6, 7], 8000, {
              state: 'starting',
              startedAt: '2026-11-29T07:45:00Z',
              rank: 1,
              endpoint: `http://${host('gpu-b02')}:8000`,
            }),
          ],
          storageOf(config, 'gpu-b02', { '/models': [defined(W['deepseek-v3'])] }),
        ),
      ),
      up(
        'gpu-b03',
        agentReport(
          eightGpus(H200, 'gpu-b03'),
          [rep('llama-3.1-8b-1', 'gpu-b03', [0], 8000, { startedAt: '2026-11-26T12:00:00Z' })],
          storageOf(config, 'gpu-b03', { '/models': [defined(W['llama-3.1-8b'])] }),
        ),
      ),
      {
        // Silent for 30 minutes: lost, so its mistral replica counts as gone.
        name: 'gpu-b04',
        reachable: false,
        error: 'gpu-b04: connect EHOSTUNREACH',
        reason: 'network',
        unreachableSince: '2026-11-29T07:30:00Z',
        lastReport: agentReport(
          eightGpus(H200, 'gpu-b04'),
          [rep('mistral-7b-0', 'gpu-b04', [0], 8000, { startedAt: '2026-11-28T20:00:00Z' })],
          storageOf(config, 'gpu-b04', { '/models': [defined(W['mistral-7b'])] }),
        ),
      },
    ],
    routers: [
      {
        name: 'rt-1',
        reachable: true,
        report: {
          version: 1,
          startedAt: '2026-11-25T00:00:00Z',
          // qwen2.5-72b-0 last served 41 hours ago and llama-3.1-8b-1 never since its start: both idle.
          lastUsed: {
            'llama-3.1-70b-0': '2026-11-29T07:59:30Z',
            'llama-3.1-70b-1': '2026-11-29T07:58:00Z',
            'qwen2.5-72b-0': '2026-11-27T15:00:00Z',
            'llama-3.1-8b-0': '2026-11-29T07:50:00Z',
          },
        },
      },
    ],
  };
}

/** mulberry32: a tiny seeded generator, so the large fixture is the same every run. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function isoMinus(base: string, seconds: number): string {
  return new Date(Date.parse(base) - seconds * 1000).toISOString().replace('.000Z', 'Z');
}

/** The large example: placed by the planner, then a few nodes down, cards broken, replicas idle. */
export function largeSnapshot(config: Config): Snapshot {
  const rnd = random(20261129);
  const gpuName = (node: string) => (node.startsWith('a100') ? A100 : /^hgx-[cd]/.test(node) ? H200 : H100);
  const allWeights = config.models.map((m) => m.weights);
  const filerHolds: Record<string, string[]> = {
    'lustre-a': allWeights,
    'lustre-b': allWeights.filter((_, i) => i % 2 === 0),
    'vast-cd': config.models.filter((m) => m.gpuClass === 'H200' || m.gpuClass === undefined).map((m) => m.weights),
  };
  const sharedHeld = (node: string) => {
    const decl = config.cluster.nodes.find((n) => n.name === node)!.storage;
    return Object.fromEntries(decl.filter((d) => d.kind === 'shared').map((d) => [d.path, filerHolds[d.filer!] ?? []]));
  };
  const empty: Snapshot = {
    version: 1,
    observedAt: OBSERVED_AT,
    nodes: config.cluster.nodes.map((n) => ({
      name: n.name,
      reachable: true,
      report: agentReport(eightGpus(gpuName(n.name), n.name), [], storageOf(config, n.name, sharedHeld(n.name))),
    })),
    routers: [],
  };
  const fleet = buildFleet(config, empty, emptyState(), OBSERVED_AT);
  const plan = planFleet(fleet, emptyState());
  const placed = projectedSnapshot(empty, projectFleet(fleet, expectedEffects(plan, fleet)));
  const weightsOf = new Map(config.models.map((m) => [m.name, m.weights]));
  const startedAt = new Map<string, string>();
  const nodes = placed.nodes.map((obs): NodeObservation => {
    if (!obs.reachable) return obs;
    const replicas = obs.report.replicas.map((r): ReplicaReport => {
      if (!startedAt.has(r.id)) startedAt.set(r.id, isoMinus(OBSERVED_AT, 3600 * (2 + Math.floor(rnd() * 200))));
      return { ...r, state: 'running', startedAt: startedAt.get(r.id)! };
    });
    const local = [...new Set(replicas.map((r) => weightsOf.get(r.model)!))];
    const localPath = obs.report.storage.find((s) => s.kind === 'local')!.path;
    const storage = obs.report.storage.map((s) => (s.path === localPath ? { ...s, weights: local.sort() } : s));
    return { ...obs, report: { ...obs.report, replicas, storage } };
  });
  return roughUp(config, { ...placed, nodes }, rnd, [...startedAt.keys()].sort());
}

function roughUp(config: Config, snap: Snapshot, rnd: () => number, ids: string[]): Snapshot {
  const pick = <T>(xs: T[]) => defined(xs[Math.floor(rnd() * xs.length)], 'a pick');
  const byName = new Map(snap.nodes.map((n) => [n.name, n]));
  const report = (name: string) => {
    const n = byName.get(name)!;
    return n.reachable ? n.report : n.lastReport!;
  };
  // Broken cards: ECC errors on a handful of GPUs.
  for (const name of ['hgx-a017', 'hgx-a052', 'hgx-b008', 'hgx-c031', 'hgx-d012', 'a100-d07']) {
    const r = report(name);
    const i = Math.floor(rnd() * 8);
    r.gpus[i] = { ...defined(r.gpus[i], `GPU ${i} of ${name}`), healthy: false, reason: 'uncorrectable ECC errors' };
  }
  // A few replicas still loading, two that failed to start (with the agent's reasons).
  const why = [
    'its process (pid 48213) exited; log: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB',
    'not healthy within startTimeoutSeconds (1200 s)',
  ];
  for (let k = 0; k < 6; k++) setState(snap, pick(ids), k < 2 ? 'failed' : 'starting', isoMinus(OBSERVED_AT, 60 * (5 + k)), why[k]);
  // Nodes that stopped answering, each for another reason: three recently, one long ago; one not in the snapshot at all.
  const down = (name: string, since: string | null, reason: UnreachableReason, error: string) => {
    const r = report(name);
    const host = config.cluster.nodes.find((n) => n.name === name)!.host;
    byName.set(name, { name, reachable: false, error: `${name} (${host}:22): ${error}`, reason, unreachableSince: since, lastReport: r });
  };
  down('hgx-a010', '2026-11-29T07:57:00Z', 'timeout', 'no TCP connection within 10s (connectTimeout)');
  down('hgx-c020', '2026-11-29T07:54:00Z', 'refused', 'connection refused');
  down(
    'a100-d05',
    '2026-11-29T07:58:30Z',
    'host-key-changed',
    'HOST KEY CHANGED: the host offers ssh-ed25519 SHA256:Vq1mXbJ8c0lI4XmT2qkqkS0mS1pVbqGyqZ9cQeY0QvM, which is not the key in ~/.ssh/known_hosts:212; refusing to connect (possible man-in-the-middle; if the host was reinstalled, fix known_hosts by hand)',
  );
  down('hgx-b033', '2026-11-29T06:10:00Z', 'network', 'connect EHOSTUNREACH');
  byName.delete('hgx-d040');
  // Routers: most replicas served within the last minutes; about one in eight not for days.
  const lastUsed: Record<string, string>[] = [{}, {}, {}];
  for (const id of ids) {
    const busy = rnd() > 0.125;
    const r = Math.floor(rnd() * 3);
    defined(lastUsed[r])[id] = busy ? isoMinus(OBSERVED_AT, 1 + Math.floor(rnd() * 900)) : isoMinus(OBSERVED_AT, 3600 * (30 + Math.floor(rnd() * 100)));
  }
  const started = ['2026-11-20T04:00:00Z', '2026-11-22T11:30:00Z', '2026-11-24T09:15:00Z'];
  return {
    ...snap,
    nodes: [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : 1)),
    routers: ['rt-1', 'rt-2', 'rt-3'].map((name, i) => ({
      name,
      reachable: true,
      report: { version: 1, startedAt: defined(started[i]), lastUsed: defined(lastUsed[i]) },
    })),
  };
}

function setState(snap: Snapshot, id: string, state: 'starting' | 'failed', at: string, error?: string): void {
  for (const n of snap.nodes) {
    if (!n.reachable) continue;
    for (const r of n.report.replicas) if (r.id === id) Object.assign(r, { state, startedAt: at }, state === 'failed' && error ? { error } : {});
  }
}

async function write(example: string, make: (c: Config) => Snapshot): Promise<void> {
  const dir = fileURLToPath(new URL(`../../../examples/${example}/`, import.meta.url));
  const loaded = await loadConfig(dir, { env: {}, displayDir: `examples/${example}` });
  if (!loaded.ok) throw new Error(`examples/${example}: invalid config`);
  await writeFileAtomic(join(dir, '.llmgw', 'observed.json'), stableJson(make(loaded.config)));
  process.stdout.write(`wrote examples/${example}/.llmgw/observed.json\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await write('demo', demoSnapshot);
  await write('large', largeSnapshot);
}
