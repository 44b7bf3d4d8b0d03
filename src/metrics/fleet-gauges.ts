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
