// The fleet gauges' values, from the status report (pure): the numbers STATUS.md
// and `llmgw status --json` show, so a dashboard and the repo cannot disagree.

import type { StatusReport } from '../status/types.js';

export type NodeState = 'reachable' | 'cordoned' | 'unreachable' | 'lost';

/**
 * Each node once, in the order GPUs fall into buckets: lost, then unreachable,
 * then cordoned (reachable but taking nothing new), then reachable. The four
 * add up to the nodes of cluster.yaml.
 */
export function nodeStates(s: StatusReport): Record<NodeState, number> {
  const total = s.fabrics.reduce((n, f) => n + f.nodes, 0);
  const lost = new Set(s.nodes.lost.map((n) => n.node));
  const unreachable = new Set(s.nodes.unreachable.map((n) => n.node).filter((n) => !lost.has(n)));
  const cordoned = s.nodes.cordoned.filter((c) => !lost.has(c.node) && !unreachable.has(c.node)).length;
  return {
    reachable: Math.max(0, total - lost.size - unreachable.size - cordoned),
    cordoned,
    unreachable: unreachable.size,
    lost: lost.size,
  };
}

/** Every numeric column of a capacity row but `total` is a bucket, so a bucket added later (`other`) shows up by itself. */
export function gpuBuckets(s: StatusReport): { class: string; bucket: string; count: number }[] {
  const out: { class: string; bucket: string; count: number }[] = [];
  for (const row of s.capacity) {
    for (const [bucket, count] of Object.entries(row)) {
      if (bucket === 'class' || bucket === 'total' || typeof count !== 'number') continue;
      out.push({ class: row.class, bucket, count });
    }
  }
  return out;
}

/** The states every desired model reports, 0 included, so "running below desired" can alert on a model with none. */
const ALWAYS: readonly string[] = ['running', 'starting', 'failed'];

export function replicaStates(s: StatusReport): { model: string; state: string; count: number }[] {
  const counts = new Map<string, Map<string, number>>();
  const of = (model: string) => {
    let m = counts.get(model);
    if (!m) counts.set(model, (m = new Map(ALWAYS.map((st) => [st, 0]))));
    return m;
  };
  for (const m of s.models) of(m.name);
  for (const r of s.replicas) {
    const m = of(r.model);
    m.set(r.state, (m.get(r.state) ?? 0) + 1);
  }
  const out: { model: string; state: string; count: number }[] = [];
  for (const model of [...counts.keys()].sort()) {
    for (const [state, count] of [...(counts.get(model)?.entries() ?? [])].sort(([a], [b]) => a.localeCompare(b))) out.push({ model, state, count });
  }
  return out;
}

/** Stalled and ejected replicas per model, 0 included for every desired model, so an alert sees a 0 and not nothing. */
export function stuckCounts(s: StatusReport): { model: string; kind: 'stalled' | 'ejected'; count: number }[] {
  const counts = new Map<string, { stalled: number; ejected: number }>();
  for (const m of s.models) counts.set(m.name, { stalled: 0, ejected: 0 });
  for (const r of s.stuckReplicas ?? []) {
    const c = counts.get(r.model) ?? { stalled: 0, ejected: 0 };
    c[r.kind] += 1;
    counts.set(r.model, c);
  }
  return [...counts.keys()].sort().flatMap((model) => {
    const c = counts.get(model) ?? { stalled: 0, ejected: 0 };
    return [
      { model, kind: 'ejected' as const, count: c.ejected },
      { model, kind: 'stalled' as const, count: c.stalled },
    ];
  });
}

/**
 * Since when each stalled or ejected replica has been so (Unix seconds): one
 * series per such replica, gone once it serves again or is replaced, so an
 * alert can say which replica and for how long without a label per healthy one.
 */
export function stuckSince(s: StatusReport): { model: string; replica: string; kind: 'stalled' | 'ejected'; since: number }[] {
  return (s.stuckReplicas ?? [])
    .map((r) => ({ model: r.model, replica: r.replica, kind: r.kind, since: Date.parse(r.since) / 1000 }))
    .filter((r) => Number.isFinite(r.since))
    .sort((a, b) => (a.replica < b.replica ? -1 : a.replica > b.replica ? 1 : 0));
}
