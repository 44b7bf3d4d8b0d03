// Where routers send a replica's requests (docs/security.md): to the URL
// llmgw builds from cluster.yaml — `http://{host}:{port}` of the node holding
// its rank 0 — never to the endpoint a report claims. Requests carry users'
// prompts and API keys: a compromised node that reports
// `"endpoint": "http://attacker/steal"`, or a PR that forges a report in
// .llmgw/observed.json, must not be able to send traffic anywhere but to a
// node cluster.yaml names. A report whose endpoint differs is shown as a
// warning in status: a misconfigured agent, or a node to look at.

import type { Fleet, FleetReplica } from '../types/fleet.js';
import type { RouterObservation } from '../types/snapshot.js';
import { clip } from '../text/terminal-text.js';

/**
 * Whether the routers report `id` served (docs/placement.md#5-lost): some router that
 * answered lists it in its table, and none that lists it ejects it. What a lost
 * node's replica is judged by: its node no longer answers SSH, its engine may.
 */
export function servedByRouters(id: string, model: string, routers: readonly RouterObservation[]): boolean {
  let listed = false;
  for (const r of routers) {
    if (!r.reachable || !(r.report.table?.[model] ?? []).some((e) => e.replica === id)) continue;
    if (r.report.ejected?.[id] !== undefined) return false;
    listed = true;
  }
  return listed;
}

/** `http://host:port`, an IPv6 address in brackets: one spelling for the agent, the projection and the routers. */
export function replicaUrl(host: string, port: number): string {
  const bracketed = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `http://${bracketed}:${port}`;
}

/** The URL routers get for `replica`: its rank-0 node's host in cluster.yaml and its port; null when either is unknown. */
export function routedUrl(replica: Pick<FleetReplica, 'nodes' | 'port'>, fleet: Pick<Fleet, 'nodeByName'>): string | null {
  const head = replica.nodes[0] === undefined ? undefined : fleet.nodeByName.get(replica.nodes[0]);
  return head && replica.port !== null ? replicaUrl(head.config.host, replica.port) : null;
}

export interface EndpointWarning {
  replica: string;
  /** The node whose report names the endpoint (rank 0's). */
  node: string;
  /** What the report says, cut to 200 characters. */
  reported: string;
  /** What the routers get instead. */
  routed: string;
}

function sameUrl(a: string, b: string): boolean {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return false;
  }
}

/** Replicas (not lost) whose reported endpoint is not the URL routers get, sorted by id. */
export function endpointWarnings(fleet: Fleet): EndpointWarning[] {
  const out: EndpointWarning[] = [];
  for (const r of fleet.replicas) {
    if (r.lost || r.endpoint === null) continue;
    const routed = routedUrl(r, fleet);
    if (routed === null || sameUrl(r.endpoint, routed)) continue;
    out.push({ replica: r.id, node: r.nodes[0] ?? '', reported: clip(r.endpoint, 200), routed });
  }
  return out.sort((a, b) => (a.replica < b.replica ? -1 : a.replica > b.replica ? 1 : 0));
}
