// Agents and a router answered from memory: starts are `running` at once and
// GPUs never change. For the tick benchmark (behind real SSH servers) and the
// tick's tests (behind an in-process Transport), where what is measured or
// checked is llmgw itself, not the agent's process handling.

import type { AgentApplyRequest, AgentReportRequest, ReplicaReport } from '../types/snapshot.js';
import { SshError } from '../errors.js';
import { stopId } from '../agent/request.js';
import type { Transport } from '../types/transport.js';

export interface ExecResult {
  stdout: string;
  stderr?: string;
  code: number;
}

export interface CannedFleet {
  handler(ctx: { host: string; command: string; stdin: string }): Promise<ExecResult>;
  /** Node -> replicas it runs. */
  replicas: Map<string, ReplicaReport[]>;
  /** Every command run, `host command`, in order. */
  calls: string[];
  /** What the router reports in flight per replica (`router usage`); nothing by default. */
  inflight: Record<string, number>;
}

export function cannedFleet(opts: { nodes: string[]; gpus?: number; gpuName?: string; routerStartedAt?: string }): CannedFleet {
  const replicas = new Map<string, ReplicaReport[]>(opts.nodes.map((n) => [n, []]));
  const startedAt = opts.routerStartedAt ?? '2026-11-29T00:00:00Z';
  const gpus = Array.from({ length: opts.gpus ?? 8 }, (_, i) => ({
    index: i,
    name: opts.gpuName ?? 'NVIDIA H100 80GB HBM3',
    memoryMiB: 81559,
    healthy: true,
  }));
  const calls: string[] = [];
  const ok = (body: unknown): ExecResult => ({ stdout: JSON.stringify(body) + '\n', code: 0 });
  const fleet: CannedFleet = {
    replicas,
    calls,
    inflight: {},
    async handler({ host, command, stdin }) {
      calls.push(`${host} ${command}`);
      if (command.endsWith('router usage')) return ok({ version: 1, startedAt, lastUsed: {}, inflight: { ...fleet.inflight }, served: {} });
      if (command.endsWith('router endpoints')) return ok({ version: 1 });
      const list = replicas.get(host);
      if (!list) return { stdout: '', stderr: 'no such node\n', code: 127 };
      if (command.endsWith('agent apply')) {
        const req = JSON.parse(stdin) as AgentApplyRequest;
        const stop = new Set(req.stop.map(stopId));
        const kept = list.filter((r) => !stop.has(r.id));
        for (const s of req.start) {
          if (kept.some((r) => r.id === s.replica)) continue;
          kept.push({
            id: s.replica,
            model: s.model,
            gpus: s.gpus,
            state: 'running',
            startedAt,
            endpoint: s.endpoint,
            port: s.port,
            rank: s.rank,
            spec: s.spec,
          });
        }
        replicas.set(host, kept);
        return ok({
          version: 1,
          results: [
            ...req.start.map((s) => ({ replica: s.replica, op: 'start', ok: true })),
            ...req.stop.map((r) => ({ replica: stopId(r), op: 'stop', ok: true })),
          ],
        });
      }
      const req = JSON.parse(stdin) as AgentReportRequest;
      const storage = req.storage.map((s) => ({ ...s, weights: [], incomplete: [] }));
      return ok({ version: 1, gpus, replicas: list, storage, warnings: [] });
    },
  };
  return fleet;
}

/** A Transport that runs the handler in-process: no SSH, for tests of what sits above the transport. */
export function handlerTransport(fleet: Pick<CannedFleet, 'handler'>): Transport {
  return {
    async run(target, command, input) {
      const r = await fleet.handler({ host: target.name, command, stdin: input });
      if (r.code !== 0) {
        throw new SshError('command-failed', target.name, `${target.name}: ${command} exited ${r.code}`, { exitCode: r.code, stderr: r.stderr ?? '' });
      }
      return r.stdout;
    },
    async close() {},
  };
}
