// The small reads `llmgw run` makes between ticks (docs/operations.md#which-trigger-sees-what):
// every router's `usage` (is anyone waiting for a model with no replica?) and one
// node's `agent report` (is the replica it starts running yet?). Same requests,
// same schema checks as a tick's gather, through the tick's transport, so its
// kept-open connections serve them: a poll opens no connection of its own.

import type { Config } from '../types/config.js';
import type { AgentReport, RouterObservation, RouterUsage } from '../types/snapshot.js';
import type { Transport } from '../types/transport.js';
import { callJson } from './call.js';
import { reportRequest, requestedWeights } from './gather.js';
import { unreachableReason } from './unreachable-reason.js';

/** Every router's usage now, in cluster.yaml's order; one that does not answer is listed unreachable. */
export async function pollRouterUsage(config: Config, transport: Transport): Promise<RouterObservation[]> {
  const command = `${config.cluster.router.command} usage`;
  return Promise.all(
    config.cluster.routers.map(async (r): Promise<RouterObservation> => {
      try {
        const report = await callJson<RouterUsage>(transport, r, command, { version: 1 }, 'router-usage');
        return { name: r.name, reachable: true, report };
      } catch (err) {
        return { name: r.name, reachable: false, error: err instanceof Error ? err.message : String(err), reason: unreachableReason(err) };
      }
    }),
  );
}

/** One node's agent report now; null when cluster.yaml has no such node. Rejects when the node does not answer. */
export async function pollAgentReport(config: Config, transport: Transport, nodeName: string): Promise<AgentReport | null> {
  const node = config.cluster.nodes.find((n) => n.name === nodeName);
  if (node === undefined) return null;
  const target = { name: node.name, host: node.host, port: node.port };
  return callJson<AgentReport>(transport, target, `${config.cluster.agent.command} report`, reportRequest(node, requestedWeights(config)), 'agent-report');
}
