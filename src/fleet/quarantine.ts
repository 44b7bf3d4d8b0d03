// GPU quarantine (docs/placement.md#quarantined-gpus): a fatal Xid in an agent's
// report takes its GPU out of service for cluster.yaml `defaults.quarantine`
// (24h). The agent reports every Xid and judges none; the meaning is decided
// here, once, so `plan --observed`, `status` and a tick cannot disagree. The
// Xid itself appears in one report only (the agent reads the kernel log since
// its last report), which is why the quarantine is kept in state.json; a
// snapshot that shows one quarantines its GPU whether or not state.json has it.
// Application Xids (13, 31, 43, ...) are the workload's fault: they quarantine
// nothing, or every bad CUDA kernel would take a card away for a day.

import type { ClusterConfig } from '../types/config.js';
import type { AgentReport, Snapshot } from '../types/snapshot.js';
import type { QuarantineRecord } from '../types/state.js';

/** Xids that mean the card itself is bad (NVIDIA's Xid catalog: fallen off the bus, double-bit ECC, row-remap failure, uncontained errors, GSP faults). */
export const FATAL_XIDS: ReadonlySet<number> = new Set([48, 63, 64, 74, 79, 92, 94, 95, 119, 120]);

const XID_WORDS: Readonly<Record<number, string>> = {
  48: 'double-bit ECC error',
  63: 'row remapping event',
  64: 'row remapping failure',
  74: 'NVLink error',
  79: 'GPU has fallen off the bus',
  92: 'high single-bit ECC error rate',
  94: 'contained ECC error',
  95: 'uncontained ECC error',
  119: 'GSP RPC timeout',
  120: 'GSP error',
};

const DEFAULT_QUARANTINE_MS = 24 * 3600_000;

export function isFatalXid(code: number): boolean {
  return FATAL_XIDS.has(code);
}

export function gpuKey(node: string, index: number): string {
  return `${node}:${index}`;
}

function seconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function reasonOf(code: number): string {
  const words = XID_WORDS[code];
  return words === undefined ? `Xid ${code}` : `Xid ${code}: ${words}`;
}

/**
 * The quarantines in force at `nowMs`: those state.json kept that have not
 * expired nor been released, plus one for each GPU a reachable report shows a
 * fatal Xid on. A GPU already quarantined keeps its first record (no refresh,
 * no churn in state.json); the earliest fatal Xid of a report opens it.
 */
export function quarantinesOf(
  prev: Readonly<Record<string, QuarantineRecord>> | undefined,
  snapshot: Snapshot,
  cluster: Pick<ClusterConfig, 'quarantine'>,
  nowMs: number,
): Record<string, QuarantineRecord> {
  const durationMs = cluster.quarantine?.durationMs ?? DEFAULT_QUARANTINE_MS;
  const released = new Set(cluster.quarantine?.release ?? []);
  const out: Record<string, QuarantineRecord> = {};
  for (const [key, q] of Object.entries(prev ?? {})) {
    if (released.has(key) || !(Date.parse(q.until) > nowMs)) continue;
    out[key] = q;
  }
  for (const n of snapshot.nodes) {
    if (!n.reachable) continue;
    for (const g of n.report.gpus) {
      // Most GPUs report no Xid: no key is built for them (160,000 of them at 20,000 nodes).
      if (g.xid === undefined || g.xid.length === 0) continue;
      const key = gpuKey(n.name, g.index);
      if (Object.hasOwn(out, key) || released.has(key)) continue;
      let first: { code: number; atMs: number } | null = null;
      for (const x of g.xid ?? []) {
        if (!isFatalXid(x.code)) continue;
        // An unreadable time is taken as now: the fault is real even if its stamp is not.
        const parsed = Date.parse(x.at);
        const atMs = Number.isNaN(parsed) ? nowMs : parsed;
        if (first === null || atMs < first.atMs) first = { code: x.code, atMs };
      }
      if (first === null) continue;
      const untilMs = first.atMs + durationMs;
      if (!(untilMs > nowMs)) continue;
      out[key] = { node: n.name, index: g.index, code: first.code, reason: reasonOf(first.code), since: seconds(first.atMs), until: seconds(untilMs) };
    }
  }
  return out;
}

/** The words shown for a quarantined GPU (STATUS.md, status JSON, `unhealthy` reasons). */
export function quarantineText(q: QuarantineRecord): string {
  return `quarantined: ${q.reason} since ${q.since}, until ${q.until}`;
}

/**
 * A report as the fleet model reads it: each quarantined GPU unhealthy with
 * the quarantine as its reason. Everything that counts `unhealthy` (buckets,
 * placement, the replacement of a replica on a bad GPU) then holds for a
 * quarantine without knowing of it. The report itself is left untouched.
 */
export function withQuarantine(report: AgentReport | null, node: string, quarantine: Readonly<Record<string, QuarantineRecord>>): AgentReport | null {
  if (report === null) return null;
  // The common case, nothing quarantined: the report as it is, no key per GPU.
  if (Object.keys(quarantine).length === 0) return report;
  const gpus = report.gpus.map((g) => {
    const key = gpuKey(node, g.index);
    const q = Object.hasOwn(quarantine, key) ? quarantine[key] : undefined;
    return q === undefined ? g : { ...g, healthy: false, reason: quarantineText(q) };
  });
  return gpus.some((g, i) => g !== report.gpus[i]) ? { ...report, gpus } : report;
}
