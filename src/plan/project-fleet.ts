// The one place a plan is projected onto the fleet (docs/commands.md plan
// "after"): the fleet as a tick leaves it once the given starts and stops took
// effect. A started replica is `starting` on its nodes with its GPUs, port and
// spec; a stopped one is gone from the nodes llmgw reached; everything else is
// as observed. `llmgw plan` projects what it expects the tick to do, the tick
// projects what it did: both render STATUS.md from this, and the tick commits
// `projectedSnapshot` as .llmgw/observed.json, which rebuilds to this very fleet.

import { assembleFleet, classifier, fleetNode } from '../fleet/build-fleet.js';
import type { Fleet, FleetNode } from '../types/fleet.js';
import type { StartAction, StopAction } from '../types/plan.js';
import type { NodeObservation, ReplicaReport, Snapshot } from '../types/snapshot.js';
import { replicaSpec } from './spec.js';
import { replicaUrl } from '../fleet/routes.js';
import { withStarts } from '../fleet/records.js';

/** The actions that took effect (or, for a preview, are expected to). */
export interface Effects {
  started: readonly StartAction[];
  /** Processes stopped: gone from the nodes that answered. */
  stopped: readonly StopAction[];
  /** Drains begun (phase `drain`): the replicas stay where they are; state.json marks them draining. */
  drained?: readonly StopAction[];
}

export const NO_EFFECTS: Effects = { started: [], stopped: [] };

function specs(fleet: Fleet): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of fleet.config.models) {
    const engine = fleet.config.cluster.engines[m.engine];
    if (engine) out.set(m.name, replicaSpec(m, engine));
  }
  return out;
}

/** What each reached node reports once the effects took place: replica ids gone, replicas added. */
function changesByNode(fleet: Fleet, effects: Effects): Map<string, { gone: Set<string>; added: ReplicaReport[] }> {
  const byNode = new Map<string, { gone: Set<string>; added: ReplicaReport[] }>();
  const at = (node: string) => {
    let c = byNode.get(node);
    if (!c) byNode.set(node, (c = { gone: new Set(), added: [] }));
    return c;
  };
  for (const stop of effects.stopped) {
    // Only a node that answered is touched: a lost node's last report still
    // lists the replica (it could not be told), as the next snapshot will.
    for (const p of stop.placement) if (fleet.nodeByName.get(p.node)?.condition === 'reachable') at(p.node).gone.add(stop.replica);
  }
  const specOf = specs(fleet);
  for (const start of effects.started) {
    const headNode = start.placement[0]?.node ?? '';
    const head = fleet.nodeByName.get(headNode);
    // Every rank is told the head's URL (src/apply/agent-requests.ts) and reports it back.
    const endpoint = replicaUrl(head?.config.host ?? headNode, start.port);
    const spec = specOf.get(start.model);
    start.placement.forEach((p, rank) => {
      at(p.node).added.push({
        id: start.replica,
        model: start.model,
        gpus: [...p.gpus],
        state: 'starting',
        endpoint,
        port: start.port,
        rank,
        ...(spec === undefined ? {} : { spec }),
      });
    });
  }
  return byNode;
}

export function projectFleet(fleet: Fleet, effects: Effects): Fleet {
  if (effects.started.length === 0 && effects.stopped.length === 0) return fleet;
  const changes = changesByNode(fleet, effects);
  const classOf = classifier(fleet.config);
  const nodes = fleet.nodes.map((node): FleetNode => {
    const change = changes.get(node.name);
    if (!change || node.report === null || node.condition !== 'reachable') return node;
    const kept = node.report.replicas.filter((r) => !change.gone.has(r.id));
    const report = { ...node.report, replicas: [...kept, ...change.added] };
    return fleetNode(
      node.config,
      {
        condition: node.condition,
        unreachableSince: node.unreachableSince,
        error: node.error,
        reason: node.reason ?? null,
        report,
        ...(node.slurm ? { slurm: node.slurm } : {}),
      },
      classOf,
      node.inventory,
    );
  });
  return assembleFleet(fleet.config, nodes, {
    now: fleet.now,
    observedAt: fleet.observedAt,
    routersAnswered: fleet.routersAnswered,
    foreignReplicaIds: fleet.foreignReplicaIds ?? [],
    // The replicas this tick started are llmgw's: recorded where it started them (src/fleet/records.ts).
    records: withStarts(fleet.records, effects.started),
    routers: fleet.routers ?? [],
    quarantine: fleet.quarantine ?? {},
    ...(fleet.slurm === undefined ? {} : { slurm: fleet.slurm }),
    // A drain is the state's (src/fleet/lifecycle.ts): carried over; the tick marks the ones it began.
    draining: (id) => fleet.replicaById.get(id)?.draining ?? null,
    // What a replica's idleness depends on (its id, start, the routers, now) is
    // unchanged by a projection, and a new replica is starting: carried over.
    idle: (r) => {
      const before = fleet.replicaById.get(r.id);
      return before && before.idleSeconds !== null && before.idleSince !== null ? { idleSeconds: before.idleSeconds, idleSince: before.idleSince } : null;
    },
  });
}

/**
 * The snapshot of a projected fleet, for .llmgw/observed.json: the observation
 * with each reached node's report as the projection left it. Built from it,
 * the fleet model is `after` again (test/plan/project-fleet.test.ts holds this).
 */
export function projectedSnapshot(snapshot: Snapshot, after: Fleet): Snapshot {
  const nodes = snapshot.nodes.map((obs): NodeObservation => {
    if (!obs.reachable) return obs;
    const report = after.nodeByName.get(obs.name)?.report;
    return report && report !== obs.report ? { ...obs, report } : obs;
  });
  return { ...snapshot, nodes };
}
