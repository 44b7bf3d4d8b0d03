// STATUS.md (docs/status.md): aggregates that stay readable for 4 or 4,000 nodes,
// rendered only from the status report so it cannot disagree with `--json`.
// It says where as well as how many: "Needs attention" names the nodes, GPUs,
// replicas and models (markdown-blocks.ts folds long lists and tables, rows
// that need attention first). Nothing that moves while the fleet stands still
// is written — no "N minutes ago", no busy replica's last use, no error line
// of an unreachable node (its reason class instead), and every time
// (observedAt, when a node went silent, when an idle replica was last used) as
// its UTC date only — so a steady fleet commits at most once a day. Every
// string from a node goes through md().

import { BAR_CHARS, BAR_ORDER, barText } from './bar.js';
import { md, plainText } from '../../text/markdown-escape.js';
import { isTime, plural, utcDate } from '../../text/format.js';
import { modelNeedsAttention } from '../../status/attention.js';
import { desiredText, lastScaleText } from '../../status/scale-rows.js';
import { EVERY_ONE, MAX_FOLDED, attentionLine, details, foldedTable, table, type Row } from './markdown-blocks.js';
import { attentionNodes } from './node-rows.js';
import { REASON_LABEL } from '../../text/reason-labels.js';
import type { HoldingRow, StatusReport } from '../../status/types.js';
import { lifecycleModelLines, otherGpusLine } from './lifecycle-sections.js';
import { renderGpuHoursSection } from './gpu-hours.js';
import { PLACEMENT_HEAD, lossText, nodesText, placementRows } from './placement-rows.js';

export { MAX_ROWS, MAX_SUBJECTS } from './markdown-blocks.js';

/** A time from a file llmgw did not write itself may be anything: escaped unless it is a time. */
function date(iso: string): string {
  return isTime(iso) ? utcDate(iso) : md(iso);
}

const WEBHOOK_YAML = [
  'notify:',
  '  webhooks:',
  '    - url: ${LLMGW_WEBHOOK_URL}        # read from the environment at run time',
  '      secret: ${LLMGW_WEBHOOK_SECRET}  # optional: signs each POST',
];

function webhookWarning(report: StatusReport): string[] {
  if (report.notify.warning === null) return [];
  return [
    '> **Warning: no `notify.webhooks` in cluster.yaml.** A lost node or a model going down notifies nobody.',
    '> Add a webhook to cluster.yaml:',
    '>',
    '> ```yaml',
    ...WEBHOOK_YAML.map((l) => `> ${l}`),
    '> ```',
    '',
  ];
}

/** A models.yaml `survive:` this fleet breaks (docs/placement.md#survive): at the top, beside the webhook warning. */
function surviveWarning(report: StatusReport): string[] {
  return (report.surviveWarnings ?? []).flatMap((w) => [`> **Warning:** ${md(w)}.`, '']);
}

function attention(report: StatusReport): string[] {
  if (report.attention.length === 0) return ['Nothing needs attention.', ''];
  return ['**Needs attention:**', '', ...report.attention.flatMap(attentionLine), ''];
}

function capacity(report: StatusReport): string[] {
  if (report.capacity.length === 0) return ['## Capacity', '', 'No GPUs observed.', ''];
  // In class order, not attention first: the bars read as one picture of the fleet.
  const rows = report.capacity.map((c) => [
    md(c.class),
    `\`${barText(c)}\``,
    `${c.total}`,
    `${c.used}`,
    `${c.free}`,
    `${c.unhealthy}`,
    `${(c.other as number | undefined) ?? 0}`,
    `${c.unreachable}`,
    `${c.cordoned}`,
  ]);
  const legend = BAR_ORDER.map((b) => `\`${BAR_CHARS[b]}\` ${b}`).join(' · ');
  return [
    '## Capacity',
    '',
    ...table(
      ['GPU class', 'Usage', 'Total', 'Used', 'Free', 'Unhealthy', 'Other', 'Unreachable', 'Cordoned'],
      ['l', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
      rows,
    ),
    '',
    legend,
    '',
  ];
}

function fabrics(report: StatusReport): string[] {
  const rows: Row[] = report.fabrics.map((f) => {
    const whole = Object.entries(f.freeWholeNodes)
      .map(([cls, n]) => `${md(cls)} ${n}`)
      .join(', ');
    return { cells: [md(f.name), `${f.nodes}`, `${f.reachable}`, whole || '—'], attention: f.reachable < f.nodes };
  });
  const head = ['Fabric', 'Nodes', 'Reachable', 'Free whole nodes'];
  return [
    '## Fabrics',
    '',
    ...foldedTable(head, ['l', 'r', 'r', 'l'], rows, (n, after) => `${plural(n, after ? 'more fabric' : 'fabric')}, every node reachable`),
    '',
  ];
}

function models(report: StatusReport): string[] {
  const rows: Row[] = report.models.map((m) => ({
    cells: [md(m.name), desiredText(m), `${m.running}`, `${m.starting}`, `${m.failed}`],
    attention: modelNeedsAttention(m),
  }));
  const draining = report.replicas.filter((r) => r.state === 'draining').length;
  const states = draining > 0 ? (['running', 'starting', 'failed', 'draining'] as const) : (['running', 'starting', 'failed'] as const);
  const counts = states.map((s) => `${report.replicas.filter((r) => r.state === s).length} ${s}`);
  const scaled = report.models.flatMap((m) => {
    const t = lastScaleText(m);
    return t === null ? [] : [`- ${md(t)}`];
  });
  const lifecycle = [...lifecycleModelLines(report, md, '- '), ...scaled];
  const head = ['Model', 'Desired', 'Running', 'Starting', 'Failed'];
  return [
    '## Models',
    '',
    `${plural(report.models.length, 'model')}, ${plural(report.replicas.length, 'replica')}: ${counts.join(', ')}.`,
    '',
    ...(rows.length
      ? [...foldedTable(head, ['l', 'r', 'r', 'r', 'r'], rows, (n, after) => `${plural(n, after ? 'more model' : 'model')}, all running as desired`), '']
      : []),
    ...(lifecycle.length ? [...lifecycle, ''] : []),
  ];
}

/** Where each model's replicas run and what one node's or one fabric's loss leaves (docs/placement.md#survive). */
function placement(report: StatusReport): string[] {
  const rows: Row[] = placementRows(report).map((p) => ({
    // A hostlist's brackets read as they are in a code span.
    cells: [md(p.model), `${p.replicas}`, `\`${plainText(nodesText(p.nodes)).replace(/[`|]/g, '')}\``, md(lossText(p.node)), md(lossText(p.fabric))],
    attention: p.attention,
  }));
  if (rows.length === 0) return [];
  return [
    '## Where replicas run',
    '',
    ...foldedTable(PLACEMENT_HEAD, ['l', 'r', 'l', 'l', 'l'], rows, (n, after) => plural(n, after ? 'more model' : 'model')),
    '',
  ];
}

function unplaceable(report: StatusReport): string[] {
  if (report.unplaceable.length === 0) return [];
  const lines = report.unplaceable.map((u) => `- **${md(u.model)}** (${u.missing} missing): ${md(u.reason)}`);
  if (lines.length <= 20) return ['## Cannot be placed', '', ...lines, ''];
  const rest = lines.slice(20, 20 + MAX_FOLDED);
  const tail = lines.length > 20 + MAX_FOLDED ? ['', `… and ${lines.length - 20 - MAX_FOLDED} more: ${EVERY_ONE}.`] : [];
  return ['## Cannot be placed', '', ...lines.slice(0, 20), '', ...details(`${lines.length - 20} more`, [...rest, ...tail]), ''];
}

function nodeCell(nodes: string[]): string {
  const first = md(nodes[0] ?? '—');
  return nodes.length <= 1 ? first : `${first} +${nodes.length - 1}`;
}

function idle(report: StatusReport): string[] {
  const unknown = report.replicas.filter((r) => r.state === 'running' && r.idleSeconds < 0).length;
  const lines = ['## Idle replicas', ''];
  const n = report.idle.length;
  lines.push(n === 0 ? 'No replica is known to be unused for `idle.after`.' : `${plural(n, 'replica')} unused for at least \`idle.after\`, longest first:`, '');
  if (n > 0) {
    // Idle is worth knowing, not an alarm: past MAX_ROWS the whole table folds.
    const rows: Row[] = report.idle.map((r) => ({ cells: [md(r.replica), md(r.model), nodeCell(r.nodes), date(r.idleSince)], attention: false }));
    lines.push(...foldedTable(['Replica', 'Model', 'Nodes', 'Unused since'], ['l', 'l', 'l', 'l'], rows, (k) => plural(k, 'idle replica')), '');
  }
  if (unknown > 0) {
    lines.push(`Idleness unknown for ${plural(unknown, 'running replica')} (a router did not answer, none is configured, or no start time).`, '');
  }
  return lines;
}

function holdingCell(h: HoldingRow | undefined): string {
  if (!h || !h.held) return '—';
  const parts: string[] = [];
  if (h.shared.length > 0) parts.push(`shared: ${h.shared.map(md).join(', ')}`);
  if (h.localNodes.length > 0) parts.push(`local on ${plural(h.localNodes.length, 'node')}`);
  return parts.join('; ');
}

/** Past this many fabrics a column per fabric stops fitting a page: list who holds what instead. */
export const MAX_FABRIC_COLUMNS = 8;

function namesCell(names: string[]): string {
  if (names.length === 0) return '—';
  const shown = names.slice(0, 20);
  return shown.map(md).join(', ') + (names.length > 20 ? `, and ${names.length - 20} more` : '');
}

function holdings(report: StatusReport): string[] {
  if (report.holdings.length === 0) return [];
  const fabricNames = report.fabrics.map((f) => f.name);
  const byModel = new Map<string, HoldingRow[]>();
  for (const h of report.holdings) byModel.set(h.model, [...(byModel.get(h.model) ?? []), h]);
  const wide = fabricNames.length > MAX_FABRIC_COLUMNS;
  const rows: Row[] = [...byModel.entries()].map(([model, hs]) => {
    const head = [md(model), md(hs[0]?.weights ?? '')];
    // Held nowhere: every replica of it fetches its weights first.
    const attention = hs.every((h) => !h.held);
    if (wide) {
      const held = hs.filter((h) => h.held).map((h) => h.fabric);
      return { cells: [...head, `${held.length} of ${fabricNames.length}`, namesCell(hs.filter((h) => !h.held).map((h) => h.fabric))], attention };
    }
    const byFabric = new Map(hs.map((h) => [h.fabric, h]));
    return { cells: [...head, ...fabricNames.map((f) => holdingCell(byFabric.get(f)))], attention };
  });
  const head = wide ? ['Model', 'Weights', 'Fabrics holding', 'Not held in'] : ['Model', 'Weights', ...fabricNames.map(md)];
  return [
    '## Weights by fabric',
    '',
    ...foldedTable(
      head,
      head.map(() => 'l' as const),
      rows,
      (n, after) => plural(n, after ? 'more model' : 'model'),
    ),
    '',
  ];
}

function nodes(report: StatusReport): string[] {
  const rows: Row[] = attentionNodes(report).map((n) => ({
    cells: [
      md(n.node),
      n.condition + (n.cordoned && n.condition !== 'cordoned' ? ', cordoned' : ''),
      n.reason === null ? '—' : REASON_LABEL[n.reason],
      n.condition === 'lost' || n.condition === 'unreachable' ? (n.since === null ? 'unknown' : date(n.since)) : '—',
      n.gpus === null ? '—' : md(n.gpus),
    ],
    attention: n.condition !== 'cordoned' || n.gpus !== null,
  }));
  const other = otherGpusLine(report, md, '**GPUs in other hands**');
  const otherPara = other.length ? [...other, ''] : [];
  if (rows.length === 0) return ['## Nodes', '', 'Every node is reachable and uncordoned; no GPU is unhealthy.', '', ...otherPara];
  const head = ['Node', 'Condition', 'Reason', 'Since', 'Unhealthy GPUs'];
  return [
    '## Nodes',
    '',
    ...foldedTable(head, ['l', 'l', 'l', 'l', 'l'], rows, (n, after) => plural(n, after ? 'more cordoned node' : 'cordoned node')),
    '',
    ...otherPara,
  ];
}

export function renderStatusMarkdown(report: StatusReport): string {
  const lines = [
    `# Fleet status: ${md(report.cluster)}`,
    '',
    ...webhookWarning(report),
    ...surviveWarning(report),
    `Observed on ${date(report.observedAt)} (UTC). Written by llmgw: do not edit.`,
    '',
    ...attention(report),
    ...capacity(report),
    ...fabrics(report),
    ...models(report),
    ...placement(report),
    ...unplaceable(report),
    ...idle(report),
    ...holdings(report),
    ...nodes(report),
    ...(report.gpuHours ? renderGpuHoursSection(report.gpuHours) : []),
  ];
  while (lines[lines.length - 1] === '') lines.pop();
  return lines.join('\n') + '\n';
}
