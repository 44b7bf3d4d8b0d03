// The fleet as the plan leaves it, as a snapshot: new replicas `starting` on
// their nodes with their GPUs, port and spec; stopped ones gone. Rendering it
// with the same STATUS.md renderer as the observed snapshot gives the diff a
// reviewer reads (docs/commands.md plan).

import type { Config } from '../types/config.js';
import type { Plan } from '../types/plan.js';
import type { NodeObservation, ReplicaReport, Snapshot } from '../types/snapshot.js';
import { replicaSpec } from './spec.js';

export function projectSnapshot(snapshot: Snapshot, plan: Plan, config: Config): Snapshot {
  const stopped = new Map<string, Set<string>>();
  const started = new Map<string, ReplicaReport[]>();
  const hosts = new Map(config.cluster.nodes.map((n) => [n.name, n.host]));
  const specs = new Map<string, string>();
  for (const m of config.models) {
    const engine = config.cluster.engines[m.engine];
    if (engine) specs.set(m.name, replicaSpec(m, engine));
  }
  for (const action of plan.actions) {
    if (action.op === 'stop') {
      for (const p of action.placement) {
        const set = stopped.get(p.node) ?? new Set<string>();
        set.add(action.replica);
        stopped.set(p.node, set);
      }
      continue;
    }
    const spec = specs.get(action.model);
    action.placement.forEach((p, rank) => {
      const report: ReplicaReport = {
        id: action.replica,
        model: action.model,
        gpus: [...p.gpus],
        state: 'starting',
        endpoint: `http://${hosts.get(p.node) ?? p.node}:${action.port}`,
        port: action.port,
        rank,
        ...(spec === undefined ? {} : { spec }),
      };
      const list = started.get(p.node) ?? [];
      list.push(report);
      started.set(p.node, list);
    });
  }
  const nodes = snapshot.nodes.map((obs): NodeObservation => {
    if (!obs.reachable) return obs;
    const gone = stopped.get(obs.name);
    const added = started.get(obs.name) ?? [];
    if (!gone && added.length === 0) return obs;
    const kept = obs.report.replicas.filter((r) => !gone?.has(r.id));
    return { ...obs, report: { ...obs.report, replicas: [...kept, ...added] } };
  });
  return { ...snapshot, nodes };
}
