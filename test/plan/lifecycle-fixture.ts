// Fleets for the lifecycle rules (drain, rollouts, answer checks, other users'
// GPUs): built through the real path — agent reports and router usage in a
// snapshot, state.json, buildFleet, planFleet — so each test states only the
// reports, the routers' counters and the state its rule is about.

import { buildFleet } from '../../src/fleet/build-fleet.js';
import { planFleet } from '../../src/plan/plan-fleet.js';
import { replicaSpec } from '../../src/plan/spec.js';
import type { Config, ModelConfig } from '../../src/types/config.js';
import type { Fleet } from '../../src/types/fleet.js';
import type { Plan } from '../../src/types/plan.js';
import type { GpuReport, ReplicaReport, RouterObservation, RouterUsage, Snapshot } from '../../src/types/snapshot.js';
import { emptyState, type State } from '../../src/types/state.js';
import { config as baseConfig, model as baseModel, nodeConfig, vllmEngine } from '../fixtures/index.js';

import { NOW, at } from '../fixtures/now.js';

export { at };
export const T0 = NOW;

const ENGINE = vllmEngine();

export function model(name: string, extra: Partial<ModelConfig> = {}): ModelConfig {
  return baseModel(name, extra);
}

/** `nodes` nodes n1.. of 8 H100 each, one router per name, safety wide open. */
export function lcConfig(models: ModelConfig[], opts: { nodes?: number; routers?: string[] } = {}): Config {
  const nodes = Array.from({ length: opts.nodes ?? 2 }, (_, i) => nodeConfig(`n${i + 1}`));
  return baseConfig(
    nodes,
    {
      routers: (opts.routers ?? ['rt-1']).map((r) => ({ name: r, host: r, port: 22 })),
      engines: { vllm: ENGINE },
      safety: { maxStopFraction: 1, minReachableFraction: 0 },
    },
    models,
  );
}

export function specOf(c: Config, name: string): string {
  return replicaSpec(
    c.models.find((m) => m.name === name)!,
    ENGINE,
  );
}

export interface Rep {
  node: string;
  report: ReplicaReport;
}

/** A replica of `<model>-<n>` on one node; spec: its model's current one unless given. */
export function rep(c: Config, id: string, node: string, gpus: number[], extra: Partial<ReplicaReport> = {}): Rep {
  const m = id.replace(/-\d+$/, '');
  const spec = c.models.some((x) => x.name === m) ? specOf(c, m) : 'deadbeef';
  return { node, report: { id, model: m, gpus, state: 'running', startedAt: '2026-11-28T00:00:00Z', port: 8000 + gpus[0]!, rank: 0, spec, ...extra } };
}

export function router(name: string, usage: Partial<RouterUsage> = {}): RouterObservation {
  return { name, reachable: true, report: { version: 1, startedAt: '2026-11-28T00:00:00Z', lastUsed: {}, inflight: {}, served: {}, ...usage } };
}

/** `lost`: nodes silent since long before (their replicas' ranks there count as gone). */
export function snap(
  c: Config,
  reps: Rep[],
  routers: RouterObservation[],
  observedAt = T0,
  foreign: Record<string, number[]> = {},
  lost: string[] = [],
): Snapshot {
  const nodes = c.cluster.nodes.map((n): Snapshot['nodes'][number] => {
    const gpus: GpuReport[] = Array.from({ length: 8 }, (_, index) => ({
      index,
      uuid: `GPU-${n.name}-${index}`,
      name: 'NVIDIA H100 80GB HBM3',
      healthy: true,
      foreign: (foreign[n.name] ?? []).includes(index) ? 1 : 0,
    }));
    const replicas = reps.filter((r) => r.node === n.name).map((r) => r.report);
    const report = { version: 1 as const, gpus, replicas, storage: [], warnings: [] };
    if (lost.includes(n.name))
      return { name: n.name, reachable: false, error: 'connect ETIMEDOUT', unreachableSince: '2026-11-28T00:00:00Z', lastReport: report };
    return { name: n.name, reachable: true, report };
  });
  return { version: 1, observedAt, nodes, routers };
}

export function planned(c: Config, s: Snapshot, state: State = emptyState(), now = s.observedAt): { fleet: Fleet; plan: Plan } {
  const fleet = buildFleet(c, s, state, now);
  return { fleet, plan: planFleet(fleet, state) };
}

/** `op replica phase (reason)` per action. */
export function lines(p: Plan): string[] {
  return p.actions.map((a) =>
    a.op === 'start'
      ? `start ${a.replica} ${a.placement.map((x) => `${x.node}[${x.gpus.join(',')}]`).join('+')}`
      : `${a.phase ?? 'stop'} ${a.replica} (${a.reason})`,
  );
}

/** A state with drains under way. */
export function drainingState(entries: Record<string, { since: string; reason?: string; outOfTablesAt?: string | null }>, base: State = emptyState()): State {
  const draining = Object.fromEntries(
    Object.entries(entries).map(([id, e]) => [
      id,
      { since: e.since, reason: e.reason ?? 'surplus (2 of 1)', outOfTablesAt: e.outOfTablesAt === undefined ? e.since : e.outOfTablesAt },
    ]),
  );
  return { ...base, lifecycle: { draining, rollouts: base.lifecycle?.rollouts ?? {} } };
}
