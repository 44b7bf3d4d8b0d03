// One `agent apply` call per node, every node at once: the transport bounds how
// many sessions are in flight (ssh.concurrency). A node that cannot be reached
// fails its own starts and stops and nothing else. The calls go in rounds of
// ssh.concurrency, and the guard (guard.ts) is asked before each round: a cut
// apply leaves the rounds not sent without a result, for the next tick.

import type { Config, NodeConfig } from '../types/config.js';
import type { AgentApplyReply, AgentApplyRequest, StartRequest, StopEntry } from '../types/snapshot.js';
import type { HostTarget, Transport } from '../types/transport.js';
import { callJson } from '../gather/call.js';
import { crashPoint } from '../util/crash-point.js';
import { isFenced, type ApplyGuard } from './guard.js';

export interface NodeBatch {
  node: string;
  start: StartRequest[];
  stop: StopEntry[];
}

function stopId(e: StopEntry): string {
  return typeof e === 'string' ? e : e.replica;
}

/** `op:replica` -> ok, or the error the node gave. */
export type NodeResults = Map<string, { ok: true } | { ok: false; error: string }>;

export function resultKey(op: 'start' | 'stop', replica: string): string {
  return `${op}:${replica}`;
}

export function nodeTarget(node: NodeConfig): HostTarget {
  return { name: node.name, host: node.host, port: node.port };
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

async function applyOnNode(batch: NodeBatch, config: Config, transport: Transport, guard: ApplyGuard): Promise<NodeResults> {
  const results: NodeResults = new Map();
  const asked = [...batch.start.map((s) => resultKey('start', s.replica)), ...batch.stop.map((r) => resultKey('stop', stopId(r)))];
  const node = config.cluster.nodes.find((n) => n.name === batch.node);
  if (!node) {
    for (const k of asked) results.set(k, { ok: false, error: `node ${batch.node} is not in cluster.yaml` });
    return results;
  }
  const request: AgentApplyRequest = { version: 1, node: node.name, ...(guard.lease ? { lease: guard.lease } : {}), start: batch.start, stop: batch.stop };
  try {
    const reply = await callJson<AgentApplyReply>(transport, nodeTarget(node), `${config.cluster.agent.command} apply`, request, 'agent-apply-reply');
    for (const r of reply.results) {
      if (!r.ok && r.error !== undefined && isFenced(r.error)) guard.fenced(r.error);
      results.set(resultKey(r.op, r.replica), r.ok ? { ok: true } : { ok: false, error: r.error ?? 'failed' });
    }
    for (const k of asked) if (!results.has(k)) results.set(k, { ok: false, error: 'the agent gave no result for it' });
    crashPoint(batch.start.length > 0 ? 'apply:start' : 'apply:stop');
  } catch (err) {
    for (const k of asked) results.set(k, { ok: false, error: errorText(err) });
  }
  return results;
}

/**
 * Every batch's results, by node name; a node absent from the map was not
 * called, because the guard stopped the apply before its round.
 */
export async function applyOnNodes(batches: NodeBatch[], config: Config, transport: Transport, guard: ApplyGuard): Promise<Map<string, NodeResults>> {
  const out = new Map<string, NodeResults>();
  const round = Math.max(1, config.cluster.ssh.concurrency);
  for (let i = 0; i < batches.length; i += round) {
    if (guard.stop() !== null) break;
    const done = await Promise.all(batches.slice(i, i + round).map(async (b) => [b.node, await applyOnNode(b, config, transport, guard)] as const));
    for (const [node, r] of done) out.set(node, r);
  }
  return out;
}

/** Group (node, item) pairs into one batch per node, nodes in name order. */
export function batchesOf(starts: { node: string; request: StartRequest }[], stops: { node: string; replica: string; entry?: StopEntry }[]): NodeBatch[] {
  const byNode = new Map<string, NodeBatch>();
  const get = (node: string) => {
    let b = byNode.get(node);
    if (!b) byNode.set(node, (b = { node, start: [], stop: [] }));
    return b;
  };
  for (const s of starts) get(s.node).start.push(s.request);
  for (const s of stops) get(s.node).stop.push(s.entry ?? s.replica);
  return [...byNode.values()].sort((a, b) => (a.node < b.node ? -1 : a.node > b.node ? 1 : 0));
}
