// Nodes: the per-node listing STATUS.md leaves out (docs/status.md), and a page
// per node — its condition and last error, every GPU with its bucket, the
// replicas it runs, what its storage holds, and its agent's warnings. All of
// it is the node's own text: escaped like everything else.

import { compressHostlist } from '../../text/compress-hostlist.js';
import type { StatusReport } from '../../status/index.js';
import { REASON_LABEL } from '../../text/reason-labels.js';
import type { Fleet, FleetNode } from '../../types/fleet.js';
import { html, join, link, pathOf, type Html } from '../html.js';
import { plural, table, when, type TableRow } from './layout.js';
import { stuckState } from './stuck.js';

function counts(n: FleetNode): Record<'total' | 'used' | 'free' | 'unhealthy', number> {
  const c = { total: n.gpus.length, used: 0, free: 0, unhealthy: 0 };
  for (const g of n.gpus) if (g.bucket === 'used' || g.bucket === 'free' || g.bucket === 'unhealthy') c[g.bucket] += 1;
  return c;
}

function classes(n: FleetNode): string {
  return [...new Set(n.gpus.map((g) => g.class))].sort().join(', ') || '—';
}

function conditionOf(n: FleetNode): string {
  return n.condition + (n.cordoned ? ', cordoned' : '');
}

function needsLook(n: FleetNode): boolean {
  return n.condition !== 'reachable' || n.gpus.some((g) => g.bucket === 'unhealthy');
}

export function nodesBody(fleet: Fleet): Html {
  const rows: TableRow[] = fleet.nodes.map((n) => {
    const c = counts(n);
    return {
      key: n.name,
      attention: needsLook(n),
      cells: [
        link(pathOf('nodes', n.name), n.name),
        n.fabric,
        conditionOf(n),
        n.reason ? REASON_LABEL[n.reason] : '—',
        classes(n),
        ...[c.total, c.used, c.free, c.unhealthy, n.replicas.length].map((v) => ({ value: v, num: true })),
      ],
    };
  });
  const ordered = [...rows.filter((r) => r.attention), ...rows.filter((r) => !r.attention)];
  const down = fleet.nodes.filter((n) => n.condition !== 'reachable').length;
  return html`<p>${plural(fleet.nodes.length, 'node')} in ${plural(fleet.config.cluster.fabrics.length, 'fabric')}, ${down} not answering; those that need a look first.</p>
${table(null, ['Node', 'Fabric', 'Condition', 'Reason', 'GPU class', 'GPUs', 'Used', 'Free', 'Unhealthy', 'Replicas'], ordered)}`;
}

function facts(pairs: [string, string | Html][]): Html {
  return html`<dl class="facts">${join(pairs.map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`))}</dl>`;
}

function gpuTable(n: FleetNode): Html {
  if (n.gpus.length === 0) return html`<p>No GPU reported${n.report === null ? ': this node has never answered' : ''}.</p>`;
  const reported = new Map((n.report?.gpus ?? []).map((g) => [g.index, g]));
  const rows: TableRow[] = n.gpus.map((g) => {
    const r = reported.get(g.index);
    const replica = g.replica === null ? '—' : link(pathOf('models', n.report?.replicas.find((x) => x.id === g.replica)?.model ?? ''), g.replica);
    return {
      key: String(g.index),
      attention: g.bucket === 'unhealthy',
      cells: [
        { value: g.index, num: true },
        g.name,
        g.class,
        g.bucket,
        r?.reason ?? '',
        r?.foreign === undefined ? '—' : { value: r.foreign, num: true },
        replica,
      ],
    };
  });
  return table(null, ['GPU', 'Product', 'Class', 'Bucket', 'Why unhealthy', 'Foreign processes', 'Replica'], rows);
}

function replicaTable(n: FleetNode, report: StatusReport): Html {
  const reps = n.report?.replicas ?? [];
  if (reps.length === 0) return html`<p>No replica.</p>`;
  const rowOf = new Map(report.replicas.map((r) => [r.id, r]));
  const rows: TableRow[] = reps.map((r) => ({
    key: r.id,
    attention: r.state === 'failed' || stuckState(report, r.id) !== null,
    cells: [
      r.id,
      link(pathOf('models', r.model), r.model),
      { value: r.rank ?? 0, num: true },
      compressHostlist(r.gpus.map(String)),
      stuckState(report, r.id)?.text ?? r.state,
      { value: r.port ?? '—', num: true },
      when(r.startedAt ?? null),
      { value: r.error ?? (r.check && !r.check.ok ? `answer check: ${r.check.error ?? 'failing'}` : (rowOf.get(r.id)?.error ?? '')), cls: 'error' },
    ],
  }));
  return table(null, ['Replica', 'Model', 'Rank', 'GPUs', 'State', 'Port', 'Started', 'Error'], rows);
}

function storageTable(n: FleetNode): Html {
  if (n.config.storage.length === 0) return html`<p>cluster.yaml tells this node to look in no storage path: it holds nothing.</p>`;
  const seen = new Map((n.report?.storage ?? []).map((s) => [s.path, s]));
  const rows: TableRow[] = n.config.storage.map((d) => {
    const s = seen.get(d.path);
    return {
      key: d.path,
      cells: [html`<code>${d.path}</code>`, d.kind, d.filer ?? '—', s ? s.weights.join(', ') || 'none' : 'not reported', s?.incomplete.join(', ') || '—'],
    };
  });
  return table(null, ['Path', 'Kind', 'Filer', 'Weights held', 'Incomplete'], rows);
}

/** null for a name cluster.yaml does not list: the page is a 404. */
export function nodeBody(name: string, fleet: Fleet, report: StatusReport): Html | null {
  const n = fleet.nodeByName.get(name);
  if (!n) return null;
  const pairs: [string, string | Html][] = [
    ['Fabric', n.fabric],
    ['Host', html`<code>${n.config.host}:${n.config.port}</code>`],
    ['Condition', conditionOf(n)],
  ];
  if (n.condition !== 'reachable') {
    pairs.push(
      ['Reason', n.reason ? REASON_LABEL[n.reason] : 'unknown'],
      ['Since', when(n.unreachableSince)],
      ['Last error', html`<span class="error">${n.error ?? ''}</span>`],
    );
    if (n.report) pairs.push(['Numbers from', 'its last report']);
  }
  pairs.push(['Free whole node', n.freeWholeClass ?? 'no']);
  const warnings = n.report?.warnings ?? [];
  const warn = warnings.length ? html`<section id="warnings"><h2>Agent warnings</h2><ul>${join(warnings.map((w) => html`<li>${w}</li>`))}</ul></section>` : '';
  return html`${facts(pairs)}
<section id="gpus"><h2>GPUs</h2>${gpuTable(n)}</section>
<section id="replicas"><h2>Replicas</h2>${replicaTable(n, report)}</section>
<section id="storage"><h2>Storage</h2>${storageTable(n)}</section>${warn}`;
}
