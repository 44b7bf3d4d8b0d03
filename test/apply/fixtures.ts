// Hand-built config, fleet and transport for the apply tests: small enough to
// read, with only the fields apply looks at filled in meaningfully.

import type { Config, ModelConfig, NodeConfig } from '../../src/types/config.js';
import type { StartAction } from '../../src/types/plan.js';
import type { Fleet, FleetNode, FleetReplica, NodeCondition } from '../../src/types/fleet.js';
import type { AgentApplyReply, AgentApplyRequest, ReplicaState } from '../../src/types/snapshot.js';
import type { HostTarget, Transport } from '../../src/types/transport.js';
import { SshError } from '../../src/errors.js';
import { stopId } from '../../src/agent/request.js';
import { model, testCluster } from '../fixtures/index.js';

export function node(name: string, extra: Partial<NodeConfig> = {}): NodeConfig {
  return { name, host: `${name}.example`, port: 22, fabric: 'ib-a', cordon: false, storage: [], ...extra };
}

export function config(nodes: NodeConfig[], routers = ['rt-1', 'rt-2']): Config {
  return {
    cluster: testCluster({
      nodes,
      routers: routers.map((r) => ({ name: r, host: `${r}.example`, port: 22 })),
      engines: {
        vllm: {
          name: 'vllm',
          command: ['vllm', 'serve', '{weightsPath}', '--tp', '{gpus}', '--port', '{port}', '--host={host}'],
          basePort: 8000,
          health: '/health',
          startTimeoutMs: 1_200_000,
        },
      },
    }),
    models: [
      model('llama', { weights: 'meta/llama', gpus: 2, args: ['--name', '{model} x'], index: 0 }),
      model('big', { weights: 'ds/v3', gpus: 8, nodes: 2, args: ['--head', '{head}', '--rank', '{rank}', '--nodes', '{nodes}'], index: 1 }),
      model('idle', { weights: 'x/idle', replicas: 0, index: 2 }),
    ],
  };
}

export function replica(id: string, model: string, nodes: string[], state: ReplicaState, port = 8000): FleetReplica {
  return {
    id,
    model,
    state,
    startedAt: '2026-11-29T07:00:00Z',
    spec: 'abcd1234',
    port,
    endpoint: `http://${nodes[0]}.example:${port}`,
    ranks: nodes.map((n, rank) => ({ node: n, rank, gpus: [0, 1] })),
    nodes,
    lost: false,
    unreachable: false,
    idleSeconds: null,
    idleSince: null,
  };
}

export function fleet(
  cfg: Config,
  replicas: FleetReplica[],
  conditions: Record<string, NodeCondition> = {},
  reports: Record<string, FleetNode['report']> = {},
): Fleet {
  const nodes: FleetNode[] = cfg.cluster.nodes.map((c) => ({
    name: c.name,
    config: c,
    fabric: c.fabric,
    cordoned: c.cordon,
    condition: conditions[c.name] ?? 'reachable',
    unreachableSince: null,
    error: null,
    report: reports[c.name] ?? null,
    gpus: [],
    holds: new Set(),
    replicas: replicas.filter((r) => r.nodes.includes(c.name)).map((r) => r.id),
    usedPorts: new Set(),
    freeWholeClass: null,
  }));
  return {
    config: cfg,
    now: '2026-11-29T08:00:00Z',
    observedAt: '2026-11-29T08:00:00Z',
    nodes,
    nodeByName: new Map(nodes.map((n) => [n.name, n])),
    replicas,
    replicaById: new Map(replicas.map((r) => [r.id, r])),
    routersAnswered: true,
  };
}

export interface Call {
  host: string;
  command: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the request as the agent parsed it (JSON); each test asserts the fields it reads
  input: any;
}

/**
 * Records every call in order. Agents answer ok for everything unless the node
 * is in `down` (unreachable) or `refuse` (replica ids it answers not ok for).
 */
export function fakeTransport(opts: { down?: string[]; refuse?: string[] } = {}): Transport & { calls: Call[] } {
  const calls: Call[] = [];
  return {
    calls,
    async run(target: HostTarget, command: string, input: string): Promise<string> {
      calls.push({ host: target.name, command, input: JSON.parse(input) });
      await new Promise((r) => setTimeout(r, 1));
      if (opts.down?.includes(target.name)) throw new SshError('unreachable', target.name, `${target.name}: connect ECONNREFUSED`);
      if (command.endsWith(' endpoints')) return '{"version":1}';
      const req = JSON.parse(input) as AgentApplyRequest;
      const reply: AgentApplyReply = {
        version: 1,
        results: [
          ...req.start.map((s) => ({
            replica: s.replica,
            op: 'start' as const,
            ...(opts.refuse?.includes(s.replica) ? { ok: false, error: 'no such GPU' } : { ok: true }),
          })),
          ...req.stop.map((r) => ({ replica: stopId(r), op: 'stop' as const, ok: true })),
        ],
      };
      return JSON.stringify(reply);
    },
    async close() {},
  };
}

/** A start of `replica`, of the model its id names (`pair-0` is pair's), at `port` on `placement`, rank 0 first. */
export function startAction(replica: string, port: number, placement: StartAction['placement']): StartAction {
  return { op: 'start', replica, model: replica.slice(0, replica.lastIndexOf('-')), port, weights: 'none', reason: 'r', placement };
}

/** config() on g1 and g2 with one more model, pair: 4 GPUs on each of 2 nodes, models.yaml's fourth. */
export function pairConfig(extra: Partial<ModelConfig> = {}): Config {
  const cfg = config([node('g1'), node('g2')]);
  cfg.models.push(model('pair', { gpus: 4, nodes: 2, index: 3, ...extra }));
  return cfg;
}

/** pair-0's start with rank 0 on g2: what the checks of what rank 0 alone carries read. */
export const PAIR_START = startAction('pair-0', 8002, [
  { node: 'g2', gpus: [4, 5, 6, 7] },
  { node: 'g1', gpus: [0, 1, 2, 3] },
]);
