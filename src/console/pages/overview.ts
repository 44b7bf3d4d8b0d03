// The Overview: everything STATUS.md says, from the same status report, with
// links to the pages that say more. Capacity as bars, free whole nodes per
// fabric, models, what cannot be placed, idle replicas, holdings, the nodes
// that need a look (with their error lines, which STATUS.md leaves out), and
// the missing-webhook warning with the YAML to add.

import { modelNeedsAttention } from '../../status/attention.js';
import { BAR_ORDER, barCells } from '../../views/status/bar.js';
import type { CapacityRow, HoldingRow, StatusReport } from '../../status/index.js';
import { attentionNodes } from '../../views/status/node-rows.js';
import { PLACEMENT_HEAD, lossText, nodesText, placementRows } from '../../views/status/placement-rows.js';
import { REASON_LABEL } from '../../text/reason-labels.js';
import { MAX_FOLDED, MAX_ROWS, MAX_SUBJECTS } from '../../views/status/render-markdown.js';
import { html, join, link, pathOf, type Html } from '../html.js';
import { attentionItem, foldedTable, plural, table, when, type TableRow } from './layout.js';

const WEBHOOK_YAML = `notify:
  webhooks:
    - url: \${LLMGW_WEBHOOK_URL}        # read from the environment at run time
      secret: \${LLMGW_WEBHOOK_SECRET}  # optional: signs each POST`;

function webhookWarning(report: StatusReport): Html | '' {
  if (report.notify.warning === null) return '';
  return html`<section class="warning" id="webhook-warning" aria-labelledby="webhook-h">
<h2 id="webhook-h">No <code>notify.webhooks</code> in cluster.yaml</h2>
<p>A lost node or a model going down notifies nobody. Add a webhook to cluster.yaml:</p>
<pre><code>${WEBHOOK_YAML}</code></pre>
</section>`;
}

/** A models.yaml `survive:` this fleet breaks (docs/placement.md#survive): at the top, as in STATUS.md. */
function surviveWarnings(report: StatusReport): Html | '' {
  const warnings = report.surviveWarnings ?? [];
  if (warnings.length === 0) return '';
  return html`<section class="warning" id="survive-warning"><h2>A model would not survive a loss</h2><ul>${join(warnings.map((w) => html`<li>${w}.</li>`))}</ul></section>`;
}

/** Where each model's replicas run and what one node's or one fabric's loss leaves, as STATUS.md has it. */
function placement(report: StatusReport): Html | '' {
  const all = placementRows(report);
  if (all.length === 0) return '';
  const rows: TableRow[] = all.map((p) => ({
    key: p.model,
    attention: p.attention,
    cells: [link(pathOf('models', p.model), p.model), { value: p.replicas, num: true }, nodesText(p.nodes), lossText(p.node), lossText(p.fabric)],
  }));
  const fold = foldedTable(PLACEMENT_HEAD, rows, MAX_ROWS, (n, after) => plural(n, after ? 'more model' : 'model'));
  return html`<section id="placement"><h2>Where replicas run</h2>${fold}</section>`;
}

export function attentionSection(report: StatusReport): Html {
  if (report.attention.length === 0) return html`<section id="attention"><h2>Needs attention</h2><p class="ok">Nothing needs attention.</p></section>`;
  return html`<section id="attention" class="attention-list"><h2>Needs attention</h2><ul>${join(report.attention.map((i) => attentionItem(i, MAX_SUBJECTS)))}</ul></section>`;
}

/**
 * A stacked bar as SVG shapes (no inline style: the CSP forbids it), shared
 * out as the terminal's bar is (barCells: every bucket with a GPU shows), at
 * a hundred cells instead of twenty.
 */
export function bar(row: CapacityRow): Html {
  const cells = barCells(row, 100);
  let x = 0;
  const rects: Html[] = [];
  for (const b of BAR_ORDER) {
    if (cells[b] <= 0) continue;
    rects.push(html`<rect class="b-${b}" x="${x * 10}" y="0" width="${cells[b] * 10}" height="20"></rect>`);
    x += cells[b];
  }
  const label = BAR_ORDER.map((b) => `${row[b]} ${b}`).join(', ');
  return html`<svg class="bar" viewBox="0 0 1000 20" preserveAspectRatio="none" role="img" aria-label="${row.class}: ${label}">${join(rects)}</svg>`;
}

const legend = html`<p class="legend">${join(
  BAR_ORDER.map((b) => html`<span class="key b-${b}">${b}</span>`),
  ' ',
)}</p>`;

function capacity(report: StatusReport): Html {
  if (report.capacity.length === 0) return html`<section id="capacity"><h2>Capacity</h2><p>No GPUs observed.</p></section>`;
  const rows: TableRow[] = report.capacity.map((c) => ({
    key: c.class,
    cells: [
      c.class,
      { value: bar(c), cls: 'barcell' },
      ...[c.total, c.used, c.free, c.unhealthy, c.other, c.unreachable, c.cordoned].map((n) => ({ value: n, num: true })),
    ],
  }));
  const head = ['GPU class', 'Usage', 'Total', 'Used', 'Free', 'Unhealthy', 'Other', 'Unreachable', 'Cordoned'];
  return html`<section id="capacity"><h2>Capacity</h2>${table(null, head, rows)}${legend}</section>`;
}

function fabrics(report: StatusReport): Html {
  const rows: TableRow[] = report.fabrics.map((f) => ({
    key: f.name,
    attention: f.reachable < f.nodes,
    cells: [
      f.name,
      { value: f.nodes, num: true },
      { value: f.reachable, num: true },
      Object.entries(f.freeWholeNodes)
        .map(([c, n]) => `${c} ${n}`)
        .join(', ') || '—',
    ],
  }));
  const fold = foldedTable(
    ['Fabric', 'Nodes', 'Reachable', 'Free whole nodes'],
    rows,
    MAX_ROWS,
    (n, after) => `${plural(n, after ? 'more fabric' : 'fabric')}, every node reachable`,
  );
  return html`<section id="fabrics"><h2>Free whole nodes per fabric</h2>${fold}</section>`;
}

export function modelRows(report: StatusReport): TableRow[] {
  return report.models.map((m) => ({
    key: m.name,
    attention: modelNeedsAttention(m),
    cells: [link(pathOf('models', m.name), m.name), ...[m.desired, m.running, m.starting, m.failed].map((n) => ({ value: n, num: true }))],
  }));
}

export const MODEL_HEAD = ['Model', 'Desired', 'Running', 'Starting', 'Failed'];

function models(report: StatusReport): Html {
  const counts = (['running', 'starting', 'failed'] as const).map((s) => `${report.replicas.filter((r) => r.state === s).length} ${s}`);
  const fold = foldedTable(MODEL_HEAD, modelRows(report), MAX_ROWS, (n, after) => `${plural(n, after ? 'more model' : 'model')}, all running as desired`);
  return html`<section id="models"><h2>Models</h2><p>${plural(report.models.length, 'model')}, ${plural(report.replicas.length, 'replica')}: ${counts.join(', ')}.</p>${report.models.length ? fold : ''}</section>`;
}

function unplaceable(report: StatusReport): Html | '' {
  if (report.unplaceable.length === 0) return '';
  const items = report.unplaceable.map((u) => html`<li>${link(pathOf('models', u.model), u.model)} (${u.missing} missing): ${u.reason}</li>`);
  return html`<section id="unplaceable"><h2>Cannot be placed</h2><ul>${join(items)}</ul></section>`;
}

export function idleRows(report: StatusReport): TableRow[] {
  return report.idle.map((r) => ({
    key: r.replica,
    cells: [
      r.replica,
      link(pathOf('models', r.model), r.model),
      join(
        r.nodes.map((n) => link(pathOf('nodes', n), n)),
        ', ',
      ),
      when(r.idleSince),
    ],
  }));
}

function idle(report: StatusReport): Html {
  const unknown = report.replicas.filter((r) => r.state === 'running' && r.idleSeconds < 0).length;
  const n = report.idle.length;
  const intro =
    n === 0
      ? html`<p>No replica is known to be unused for <code>idle.after</code>.</p>`
      : html`<p>${plural(n, 'replica')} unused for at least <code>idle.after</code>, longest first:</p>`;
  // Idle replicas never need attention, so every row folds; past MAX_FOLDED the fold
  // writes the first (longest unused) and says where the rest are, as STATUS.md does:
  // 18,000 rows would be megabytes of HTML on every request of a 20,000-node fleet.
  const shown = n > MAX_FOLDED ? { ...report, idle: report.idle.slice(0, MAX_FOLDED) } : report;
  const fold = n > 0 ? foldedTable(['Replica', 'Model', 'Nodes', 'Unused since'], idleRows(shown), MAX_ROWS, () => plural(n, 'idle replica')) : '';
  const more =
    n > MAX_FOLDED ? html`<p>… and ${n - MAX_FOLDED} more: each model's page and the ${link('/status.json', 'Status JSON')} list every one.</p>` : '';
  const rows = html`${fold}${more}`;
  const unknownLine =
    unknown > 0 ? html`<p>Idleness unknown for ${plural(unknown, 'running replica')} (a router did not answer, none is configured, or no start time).</p>` : '';
  return html`<section id="idle"><h2>Idle replicas</h2>${intro}${rows}${unknownLine}</section>`;
}

function holdingCell(h: HoldingRow | undefined): string {
  if (!h || !h.held) return '—';
  const parts: string[] = [];
  if (h.shared.length > 0) parts.push(`shared: ${h.shared.join(', ')}`);
  if (h.localNodes.length > 0) parts.push(`local on ${plural(h.localNodes.length, 'node')}`);
  return parts.join('; ');
}

function holdings(report: StatusReport): Html | '' {
  if (report.holdings.length === 0) return '';
  const fabricNames = report.fabrics.map((f) => f.name);
  const byModel = new Map<string, HoldingRow[]>();
  for (const h of report.holdings) byModel.set(h.model, [...(byModel.get(h.model) ?? []), h]);
  const rows: TableRow[] = [...byModel.entries()].map(([model, hs]) => {
    const byFabric = new Map(hs.map((h) => [h.fabric, h]));
    return {
      key: model,
      attention: hs.every((h) => !h.held),
      cells: [link(pathOf('models', model), model), hs[0]?.weights ?? '', ...fabricNames.map((f) => holdingCell(byFabric.get(f)))],
    };
  });
  const fold = foldedTable(['Model', 'Weights', ...fabricNames], rows, MAX_ROWS, (n, after) => plural(n, after ? 'more model' : 'model'));
  return html`<section id="holdings"><h2>Weights by fabric</h2>${fold}</section>`;
}

export function nodesSection(report: StatusReport): Html {
  const rows: TableRow[] = attentionNodes(report).map((n) => ({
    key: n.node,
    attention: n.condition !== 'cordoned' || n.gpus !== null,
    cells: [
      link(pathOf('nodes', n.node), n.node),
      n.condition + (n.cordoned && n.condition !== 'cordoned' ? ', cordoned' : ''),
      n.reason === null ? '—' : REASON_LABEL[n.reason],
      n.condition === 'lost' || n.condition === 'unreachable' ? when(n.since) : '—',
      n.gpus ?? '—',
      { value: n.error ?? '', cls: 'error' },
    ],
  }));
  const body =
    rows.length === 0
      ? html`<p class="ok">Every node is reachable and uncordoned; no GPU is unhealthy.</p>`
      : foldedTable(['Node', 'Condition', 'Reason', 'Since', 'Unhealthy GPUs', 'Last error'], rows, MAX_ROWS, (n, after) =>
          plural(n, after ? 'more cordoned node' : 'cordoned node'),
        );
  return html`<section id="nodes"><h2>Nodes that need a look</h2>${body}<p>${link('/nodes', 'Every node')}</p></section>`;
}

export function overviewBody(report: StatusReport): Html {
  return html`${webhookWarning(report)}${surviveWarnings(report)}${attentionSection(report)}${capacity(report)}${fabrics(report)}${models(report)}${placement(report)}${unplaceable(report)}${idle(report)}${holdings(report)}${nodesSection(report)}`;
}
