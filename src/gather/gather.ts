// Observe the fleet: one agent report per node and one usage reply per router,
// all in parallel under the transport's concurrency, into a snapshot
// (docs/protocol.md). An unreachable host is data, not a failure: it carries its error, since
// when it has been unreachable, and the last report seen from it.

import type { Config, NodeConfig } from '../types/config.js';
import type {
  AgentReport,
  AgentReportRequest,
  NodeObservation,
  ReplicaReport,
  RouterObservation,
  RouterUsage,
  Snapshot,
  UnreachableReason,
} from '../types/snapshot.js';
import type { State } from '../types/state.js';
import type { HostTarget, Transport } from '../types/transport.js';
import { SshError } from '../errors.js';
import { callJson } from './call.js';
import { observeSlurm } from './slurm.js';
import { unreachableReason } from './unreachable-reason.js';
import { crashPoint } from '../util/crash-point.js';

export interface GatherProgress {
  done: number;
  total: number;
  unreachable: number;
}

export interface GatherDeps {
  transport: Transport;
  previous: Snapshot | null;
  state: State;
  now: () => Date;
  onProgress?: (p: GatherProgress) => void;
}

/** Code-point order: the same on every machine, whatever its locale. */
function byName<T extends { name: string }>(a: T, b: T): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** Every distinct `weights` of models.yaml, sorted: each node is asked about all of them. */
export function requestedWeights(config: Config): string[] {
  return [...new Set(config.models.flatMap((m) => [m.weights, ...(m.adapters ?? []).map((a) => a.weights)]))].sort();
}

export function reportRequest(node: NodeConfig, weights: string[]): AgentReportRequest {
  const storage = node.storage.map((s) =>
    s.kind === 'shared' && s.filer !== undefined ? { path: s.path, kind: s.kind, filer: s.filer } : { path: s.path, kind: s.kind },
  );
  return { version: 1, node: node.name, storage, weights };
}

/** One line, whatever went wrong: the snapshot's `error` field. */
function errorLine(err: unknown): string {
  const message = err instanceof SshError ? err.message : `internal error: ${(err as Error | null | undefined)?.message ?? String(err)}`;
  return message.split('\n', 1)[0] ?? '';
}

/**
 * The replicas state.json places on a node, as the report it would have
 * sent: what an unreachable node carries over when the previous snapshot is
 * missing or was unreadable. Its GPUs are unknown (none listed: nothing is
 * placed on an unreachable node anyway); its replicas keep their ids taken
 * and count toward their models until the node answers or is lost.
 */
export function recordedReport(name: string, state: State): AgentReport | null {
  const replicas: ReplicaReport[] = [];
  for (const [id, rec] of Object.entries(state.placements ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    for (const k of rec.ranks) {
      if (k.node !== name) continue;
      replicas.push({
        id,
        model: rec.model,
        gpus: [...k.gpus],
        state: rec.state,
        rank: k.rank,
        ...(rec.port === undefined ? {} : { port: rec.port }),
        ...(rec.spec === undefined ? {} : { spec: rec.spec }),
      });
    }
  }
  if (replicas.length === 0) return null;
  const warning = 'last report unknown (.llmgw/observed.json was missing or unreadable): its replicas as .llmgw/state.json recorded them';
  return { version: 1, gpus: [], replicas, storage: [], warnings: [warning] };
}

/**
 * What an unreachable node carries over: since when (kept from the previous
 * snapshot, else from state.json, else now; an unknown start stays unknown, so
 * a lost node does not look freshly unreachable) and its last report (from
 * the previous snapshot, else as state.json's placements describe it).
 */
export function unreachableObservation(
  name: string,
  error: string,
  prev: NodeObservation | undefined,
  state: State,
  now: string,
  reason?: UnreachableReason,
): NodeObservation {
  let since: string | null;
  if (prev?.reachable === true) since = now;
  else if (prev !== undefined) since = prev.unreachableSince ?? state.unreachableSince[name] ?? null;
  else since = state.unreachableSince[name] ?? now;
  // `?? null`: a hand-edited previous snapshot may lack the field; the new one never does.
  const lastReport = (prev === undefined ? null : prev.reachable ? prev.report : prev.lastReport) ?? recordedReport(name, state);
  return { name, reachable: false, error, ...(reason === undefined ? {} : { reason }), unreachableSince: since, lastReport };
}

export async function gatherSnapshot(config: Config, deps: GatherDeps): Promise<Snapshot> {
  const { cluster } = config;
  const observedAt = deps
    .now()
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z');
  const prevNodes = new Map((deps.previous?.nodes ?? []).map((n) => [n.name, n]));
  const weights = requestedWeights(config);
  const agentCommand = `${cluster.agent.command} report`;
  const routerCommand = `${cluster.router.command} usage`;
  const nodes = [...cluster.nodes].sort(byName);
  const progress = { done: 0, total: nodes.length, unreachable: 0 };

  const observeNode = async (node: NodeConfig): Promise<NodeObservation> => {
    const target: HostTarget = { name: node.name, host: node.host, port: node.port };
    let obs: NodeObservation;
    try {
      const report = await callJson<AgentReport>(deps.transport, target, agentCommand, reportRequest(node, weights), 'agent-report');
      obs = { name: node.name, reachable: true, report };
      crashPoint('gather');
    } catch (err) {
      obs = unreachableObservation(node.name, errorLine(err), prevNodes.get(node.name), deps.state, observedAt, unreachableReason(err));
      progress.unreachable += 1;
    }
    progress.done += 1;
    deps.onProgress?.({ ...progress });
    return obs;
  };

  const observeRouter = async (r: { name: string; host: string; port: number }): Promise<RouterObservation> => {
    try {
      const report = await callJson<RouterUsage>(deps.transport, r, routerCommand, { version: 1 }, 'router-usage');
      return { name: r.name, reachable: true, report };
    } catch (err) {
      return { name: r.name, reachable: false, error: errorLine(err), reason: unreachableReason(err) };
    }
  };

  const [nodeObs, routerObs, slurm] = await Promise.all([
    Promise.all(nodes.map(observeNode)),
    Promise.all([...cluster.routers].sort(byName).map(observeRouter)),
    observeSlurm(config, deps.transport, deps.previous?.slurm, deps.now()),
  ]);
  return { version: 1, observedAt, nodes: nodeObs, routers: routerObs, ...(slurm === undefined ? {} : { slurm }) };
}
