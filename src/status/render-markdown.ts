// STATUS.md (docs/status.md): aggregates that stay readable for 4 or 4,000 nodes,
// rendered only from the status report so it cannot disagree with `--json`.
// Nothing that moves while the fleet stands still is written — no "N minutes
// ago", no busy replica's last use, and every time (observedAt, when a node
// went silent, when an idle replica was last used) as its UTC date only — so a
// steady fleet commits at most once a day. Every string from a node goes
// through md().

import { attentionItems } from './attention.js';
import { BAR_CHARS, BAR_ORDER, barText } from './bar.js';
import { md } from './escape.js';
import { capList, isTime, plural, sum, utcDate } from './format.js';
import { lifecycleModelLines, otherGpusLine } from './lifecycle-sections.js';
import type { HoldingRow, NodeSince, StatusReport } from './types.js';

/** Longest list written out before "and N more". */
export const MAX_LIST = 20;

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

function table(head: string[], align: ('l' | 'r')[], rows: string[][]): string[] {
  const sep = align.map((a) => (a === 'r' ? '---:' : '---'));
  return [head, sep, ...rows].map((cells) => `| ${cells.join(' | ')} |`);
}

function more(n: number): string[] {
  return n > 0 ? [`… and ${n} more.`] : [];
}

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

function attention(report: StatusReport): string[] {
  const items = attentionItems(report);
  if (items.length === 0) return ['Nothing needs attention.', ''];
  return ['**Needs attention:**', '', ...items.map((i) => `- ${i}`), ''];
}

function capacity(report: StatusReport): string[] {
  if (report.capacity.length === 0) return ['## Capacity', '', 'No GPUs observed.', ''];
  const rows = report.capacity.map((c) => [
    md(c.class), `\`${barText(c)}\``, `${c.total}`, `${c.used}`, `${c.free}`, `${c.unhealthy}`, `${c.other ?? 0}`, `${c.unreachable}`, `${c.cordoned}`,
  ]);
  const legend = BAR_ORDER.map((b) => `\`${BAR_CHARS[b]}\` ${b}`).join(' · ');
  return [
    '## Capacity',
    '',
    ...table(['GPU class', 'Usage', 'Total', 'Used', 'Free', 'Unhealthy', 'Other', 'Unreachable', 'Cordoned'], ['l', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r'], rows),
    '',
    legend,
    '',
  ];
}

function fabrics(report: StatusReport): string[] {
  const rows = report.fabrics.map((f) => {
    const whole = Object.entries(f.freeWholeNodes).map(([cls, n]) => `${md(cls)} ${n}`).join(', ');
    return [md(f.name), `${f.nodes}`, `${f.reachable}`, whole || '—'];
  });
  return ['## Fabrics', '', ...table(['Fabric', 'Nodes', 'Reachable', 'Free whole nodes'], ['l', 'r', 'r', 'l'], rows), ''];
}

function models(report: StatusReport): string[] {
  const rows = report.models.map((m) => [md(m.name), `${m.desired}`, `${m.running}`, `${m.starting}`, `${m.failed}`]);
  const total = report.replicas.length;
  const draining = report.replicas.filter((r) => r.state === 'draining').length;
  const states = draining > 0 ? (['running', 'starting', 'failed', 'draining'] as const) : (['running', 'starting', 'failed'] as const);
  const counts = states.map((s) => `${report.replicas.filter((r) => r.state === s).length} ${s}`);
  const lifecycle = lifecycleModelLines(report, md, '- ');
  return [
    '## Models',
    '',
    `${plural(report.models.length, 'model')}, ${plural(total, 'replica')}: ${counts.join(', ')}.`,
    '',
    ...(rows.length ? table(['Model', 'Desired', 'Running', 'Starting', 'Failed'], ['l', 'r', 'r', 'r', 'r'], rows) : []),
    ...(rows.length ? [''] : []),
    ...(lifecycle.length ? [...lifecycle, ''] : []),
  ];
}

function unplaceable(report: StatusReport): string[] {
  if (report.unplaceable.length === 0) return [];
  const { shown, more: n } = capList(report.unplaceable, MAX_LIST);
  return ['## Cannot be placed', '', ...shown.map((u) => `- **${md(u.model)}** (${u.missing} missing): ${md(u.reason)}`), ...more(n), ''];
}

function nodeCell(nodes: string[]): string {
  return nodes.length <= 1 ? md(nodes[0] ?? '—') : `${md(nodes[0])} +${nodes.length - 1}`;
}

function idle(report: StatusReport): string[] {
  const unknown = report.replicas.filter((r) => r.state === 'running' && r.idleSeconds < 0).length;
  const lines = ['## Idle replicas', ''];
  lines.push(
    report.idle.length === 0
      ? 'No replica is known to be unused for `idle.after`.'
      : `${plural(report.idle.length, 'replica')} unused for at least \`idle.after\`:`,
  );
  lines.push('');
  if (report.idle.length > 0) {
    const { shown, more: n } = capList(report.idle, MAX_LIST);
    const rows = shown.map((r) => [md(r.replica), md(r.model), nodeCell(r.nodes), date(r.idleSince)]);
    lines.push(...table(['Replica', 'Model', 'Nodes', 'Unused since'], ['l', 'l', 'l', 'l'], rows), ...more(n), '');
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
  const { shown, more: n } = capList(names, MAX_LIST);
  return shown.map(md).join(', ') + (n > 0 ? `, and ${n} more` : '');
}

function holdings(report: StatusReport): string[] {
  if (report.holdings.length === 0) return [];
  const fabricNames = report.fabrics.map((f) => f.name);
  const byModel = new Map<string, HoldingRow[]>();
  for (const h of report.holdings) byModel.set(h.model, [...(byModel.get(h.model) ?? []), h]);
  const wide = fabricNames.length > MAX_FABRIC_COLUMNS;
  const rows = [...byModel.entries()].map(([model, hs]) => {
    const head = [md(model), md(hs[0].weights)];
    if (wide) {
      const held = hs.filter((h) => h.held).map((h) => h.fabric);
      return [...head, `${held.length} of ${fabricNames.length}`, namesCell(hs.filter((h) => !h.held).map((h) => h.fabric))];
    }
    const byFabric = new Map(hs.map((h) => [h.fabric, h]));
    return [...head, ...fabricNames.map((f) => holdingCell(byFabric.get(f)))];
  });
  const head = wide ? ['Model', 'Weights', 'Fabrics holding', 'Not held in'] : ['Model', 'Weights', ...fabricNames.map(md)];
  return ['## Weights by fabric', '', ...table(head, head.map(() => 'l' as const), rows), ''];
}

function nodeList(label: string, nodes: NodeSince[] | { node: string }[]): string[] {
  if (nodes.length === 0) return [];
  const { shown, more: n } = capList(nodes as NodeSince[], MAX_LIST);
  const names = shown.map((x) => (x.since === undefined ? md(x.node) : `${md(x.node)} (since ${x.since ? date(x.since) : 'unknown'})`));
  return [`- **${label}** (${nodes.length}): ${names.join(', ')}${n > 0 ? `, and ${n} more` : ''}`];
}

function nodes(report: StatusReport): string[] {
  const unhealthy = report.capacity.filter((c) => c.unhealthy > 0);
  const lines = [
    ...nodeList('Lost', report.nodes.lost),
    ...nodeList('Unreachable', report.nodes.unreachable),
    ...nodeList('Cordoned', report.nodes.cordoned),
  ];
  if (unhealthy.length > 0) {
    const total = sum(unhealthy.map((c) => c.unhealthy));
    lines.push(`- **Unhealthy GPUs** (${total}): ${unhealthy.map((c) => `${md(c.class)} ${c.unhealthy}`).join(', ')}`);
  }
  lines.push(...otherGpusLine(report, md, '- **GPUs in other hands**'));
  return ['## Nodes', '', ...(lines.length ? lines : ['Every node is reachable and uncordoned; no GPU is unhealthy.']), ''];
}

export function renderStatusMarkdown(report: StatusReport): string {
  const lines = [
    `# Fleet status: ${md(report.cluster)}`,
    '',
    ...webhookWarning(report),
    `Observed on ${date(report.observedAt)} (UTC). Written by llmgw: do not edit.`,
    '',
    ...attention(report),
    ...capacity(report),
    ...fabrics(report),
    ...models(report),
    ...unplaceable(report),
    ...idle(report),
    ...holdings(report),
    ...nodes(report),
  ];
  while (lines[lines.length - 1] === '') lines.pop();
  return lines.join('\n') + '\n';
}
