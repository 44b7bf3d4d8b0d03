// `llmgw status` for a terminal: the same report as STATUS.md, denser, with
// exact times and idle durations (nothing here is committed), colour only when
// the caller asks for it. Every string from a node goes through plainText().

import { BAR_CHARS, BAR_ORDER, barSegments, barText, BAR_WIDTH, type BarBucket } from './bar.js';
import { plainText as t } from '../../text/markdown-escape.js';
import { capList, duration, plural } from '../../text/format.js';
import { MAX_SUBJECTS } from './markdown-blocks.js';
import { attentionNodes } from './node-rows.js';
import { REASON_LABEL } from '../../text/reason-labels.js';
import { modelNeedsAttention } from '../../status/attention.js';
import { desiredText, lastScaleText } from '../../status/scale-rows.js';
import type { AttentionItem, StatusReport } from '../../status/types.js';
import { lifecycleModelLines, otherGpusLine } from './lifecycle-sections.js';
import { PLACEMENT_HEAD, lossText, nodesText, placementRows } from './placement-rows.js';

export const MAX_TEXT_LIST = 20;
const EVERY_ONE = '(llmgw status --json lists every one)';

type Paint = (code: string, s: string) => string;

const COLOR: Record<BarBucket, string> = { used: '36', unhealthy: '31', other: '34', unreachable: '33', cordoned: '35', free: '2' };

function painter(color: boolean): Paint {
  return color ? (code, s) => `\x1b[${code}m${s}\x1b[0m` : (_code, s) => s;
}

function pad(cells: string[][]): string[] {
  const widths = (cells[0] ?? []).map((_, i) => Math.max(...cells.map((r) => [...(r[i] ?? '')].length)));
  const numeric = (i: number) => cells.slice(1).every((r) => /^-?\d+$/.test(r[i] ?? ''));
  return cells.map((r) =>
    r
      .map((c, i) => (numeric(i) ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
}

function capacity(report: StatusReport, paint: Paint): string[] {
  if (report.capacity.length === 0) return ['Capacity: no GPUs observed', ''];
  const head = ['class', 'usage', 'total', 'used', 'free', 'unhealthy', 'other', 'unreachable', 'cordoned'];
  const plainBars = report.capacity.map((c) => `[${barText(c)}]`);
  const rows = report.capacity.map((c, i) => [
    t(c.class),
    plainBars[i] ?? '',
    ...[c.total, c.used, c.free, c.unhealthy, (c.other as number | undefined) ?? 0, c.unreachable, c.cordoned].map(String),
  ]);
  const padded = pad([head, ...rows]);
  // Columns are measured on the plain bar; the coloured one replaces it after.
  const lines = report.capacity.map((c, i) => {
    const coloured = `[${barSegments(c)
      .map((s) => paint(COLOR[s.bucket], s.text))
      .join('')}${' '.repeat(BAR_WIDTH - [...barText(c).trimEnd()].length)}]`;
    return (padded[i + 1] ?? '').replace(plainBars[i] ?? '', coloured);
  });
  const legend = BAR_ORDER.map((b) => `${paint(COLOR[b], BAR_CHARS[b])} ${b}`).join('  ');
  return [paint('1', 'Capacity'), `  ${padded[0] ?? ''}`, ...lines.map((l) => `  ${l}`), `  ${legend}`, ''];
}

function fabrics(report: StatusReport): string[] {
  const rows = report.fabrics.map((f) => {
    const whole =
      Object.entries(f.freeWholeNodes)
        .map(([c, n]) => `${t(c)} ${n}`)
        .join(', ') || '-';
    return [t(f.name), `${f.nodes}`, `${f.reachable}`, whole];
  });
  return ['Fabrics', ...pad([['fabric', 'nodes', 'reachable', 'free whole nodes'], ...rows]).map((l) => `  ${l}`), ''];
}

function models(report: StatusReport): string[] {
  if (report.models.length === 0) return ['Models: none', ''];
  const ordered = [...report.models.filter(modelNeedsAttention), ...report.models.filter((m) => !modelNeedsAttention(m))];
  const rows = ordered.map((m) => [t(m.name), desiredText(m), ...[m.running, m.starting, m.failed].map(String)]);
  const scaled = report.models.flatMap((m) => {
    const line = lastScaleText(m);
    return line === null ? [] : [`  ${t(line)}`];
  });
  const lifecycle = [...lifecycleModelLines(report, t, '  ', (x) => x), ...scaled];
  return ['Models', ...pad([['model', 'desired', 'running', 'starting', 'failed'], ...rows]).map((l) => `  ${l}`), ...lifecycle, ''];
}

/** Where each model's replicas run and what one node's or one fabric's loss leaves (docs/placement.md#survive). */
function placement(report: StatusReport): string[] {
  const all = placementRows(report);
  if (all.length === 0) return [];
  const ordered = [...all.filter((p) => p.attention), ...all.filter((p) => !p.attention)];
  const { shown, more } = capList(ordered, MAX_TEXT_LIST);
  const rows = shown.map((p) => [t(p.model), String(p.replicas), t(nodesText(p.nodes)), t(lossText(p.node)), t(lossText(p.fabric))]);
  return [
    'Where replicas run',
    ...pad([PLACEMENT_HEAD.map((h) => h.toLowerCase()), ...rows]).map((l) => `  ${l}`),
    ...(more ? [`  … and ${more} more ${EVERY_ONE}`] : []),
    '',
  ];
}

function unplaceable(report: StatusReport, paint: Paint): string[] {
  if (report.unplaceable.length === 0) return [];
  const { shown, more } = capList(report.unplaceable, MAX_TEXT_LIST);
  return [
    paint('31', 'Cannot be placed'),
    ...shown.map((u) => `  ${t(u.model)} (${u.missing} missing): ${t(u.reason)}`),
    ...(more ? [`  … and ${more} more ${EVERY_ONE}`] : []),
    '',
  ];
}

function idle(report: StatusReport): string[] {
  const unknown = report.replicas.filter((r) => r.state === 'running' && r.idleSeconds < 0).length;
  const lines = [`Idle replicas (unused for at least idle.after): ${report.idle.length}`];
  const { shown, more } = capList(report.idle, MAX_TEXT_LIST);
  if (shown.length > 0) {
    const rows = shown.map((r) => [t(r.replica), t(r.model), r.nodes.map(t).join(','), duration(r.idleSeconds), t(r.idleSince)]);
    lines.push(...pad([['replica', 'model', 'nodes', 'unused for', 'since'], ...rows]).map((l) => `  ${l}`));
    if (more) lines.push(`  … and ${more} more ${EVERY_ONE}`);
  }
  if (unknown > 0) lines.push(`  idleness unknown for ${plural(unknown, 'running replica')}`);
  return [...lines, ''];
}

function nodes(report: StatusReport): string[] {
  const rows = attentionNodes(report);
  const other = otherGpusLine(report, t, '  GPUs in other hands');
  if (rows.length === 0) return other.length ? ['Nodes', ...other, ''] : [];
  const { shown, more } = capList(rows, MAX_TEXT_LIST);
  const cells = shown.map((n) => [
    t(n.node),
    n.condition + (n.cordoned && n.condition !== 'cordoned' ? ',cordoned' : ''),
    n.reason === null ? '-' : REASON_LABEL[n.reason],
    n.condition === 'lost' || n.condition === 'unreachable' ? (n.since === null ? 'unknown' : t(n.since)) : '-',
    n.gpus === null ? '-' : t(n.gpus),
    n.error === null ? '' : t(n.error),
  ]);
  const lines = pad([['node', 'condition', 'reason', 'since', 'unhealthy GPUs', 'error'], ...cells]).map((l) => `  ${l}`);
  return ['Nodes', ...lines, ...(more ? [`  … and ${more} more ${EVERY_ONE}`] : []), ...other, ''];
}

function attentionLine(item: AttentionItem, paint: Paint): string {
  const names = item.subjects.map((s) => (s.detail === null ? t(s.name) : `${t(s.name)} (${t(s.detail)})`));
  const { shown, more } = capList(names, MAX_SUBJECTS);
  const where = shown.length === 0 ? '' : `: ${shown.join(', ')}${more ? `, and ${more} more` : ''}`;
  return `  ${paint('33', '!')} ${t(item.text)}${where}`;
}

export function renderStatusText(report: StatusReport, opts: { color: boolean }): string {
  const paint = painter(opts.color);
  const items = report.attention;
  const lines = [
    `${paint('1', t(report.cluster))}: observed ${t(report.observedAt)}`,
    '',
    ...(report.notify.warning === null ? [] : [paint('33', `warning: ${t(report.notify.warning)}`), '']),
    ...(report.surviveWarnings ?? []).flatMap((w) => [paint('33', `warning: ${t(w)}`), '']),
    ...(items.length ? [paint('1', 'Needs attention'), ...items.map((i) => attentionLine(i, paint)), ''] : ['Nothing needs attention.', '']),
    ...capacity(report, paint),
    ...fabrics(report),
    ...models(report),
    ...placement(report),
    ...unplaceable(report, paint),
    ...idle(report),
    ...nodes(report),
  ];
  while (lines[lines.length - 1] === '') lines.pop();
  return lines.join('\n') + '\n';
}
