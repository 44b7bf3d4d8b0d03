// `llmgw status` for a terminal: the same report as STATUS.md, denser, with
// exact times and idle durations (nothing here is committed), colour only when
// the caller asks for it. Every string from a node goes through plainText().

import { attentionItems } from './attention.js';
import { BAR_CHARS, BAR_ORDER, barSegments, barText, BAR_WIDTH, type BarBucket } from './bar.js';
import { plainText as t } from './escape.js';
import { capList, duration, plural } from './format.js';
import { lifecycleModelLines, otherGpusLine } from './lifecycle-sections.js';
import type { NodeSince, StatusReport } from './types.js';

export const MAX_TEXT_LIST = 20;

type Paint = (code: string, s: string) => string;

const COLOR: Record<BarBucket, string> = { used: '36', unhealthy: '31', other: '34', unreachable: '33', cordoned: '35', free: '2' };

function painter(color: boolean): Paint {
  return color ? (code, s) => `\x1b[${code}m${s}\x1b[0m` : (_code, s) => s;
}

function pad(cells: string[][]): string[] {
  const widths = cells[0].map((_, i) => Math.max(...cells.map((r) => [...r[i]].length)));
  const numeric = (i: number) => cells.slice(1).every((r) => /^-?\d+$/.test(r[i]));
  return cells.map((r) => r.map((c, i) => (numeric(i) ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ').trimEnd());
}

function capacity(report: StatusReport, paint: Paint): string[] {
  if (report.capacity.length === 0) return ['Capacity: no GPUs observed', ''];
  const head = ['class', 'usage', 'total', 'used', 'free', 'unhealthy', 'other', 'unreachable', 'cordoned'];
  const plainBars = report.capacity.map((c) => `[${barText(c)}]`);
  const rows = report.capacity.map((c, i) => [t(c.class), plainBars[i], ...[c.total, c.used, c.free, c.unhealthy, c.other ?? 0, c.unreachable, c.cordoned].map(String)]);
  const padded = pad([head, ...rows]);
  // Columns are measured on the plain bar; the coloured one replaces it after.
  const lines = report.capacity.map((c, i) => {
    const coloured = `[${barSegments(c).map((s) => paint(COLOR[s.bucket], s.text)).join('')}${' '.repeat(BAR_WIDTH - [...barText(c).trimEnd()].length)}]`;
    return padded[i + 1].replace(plainBars[i], coloured);
  });
  const legend = BAR_ORDER.map((b) => `${paint(COLOR[b], BAR_CHARS[b])} ${b}`).join('  ');
  return [paint('1', 'Capacity'), `  ${padded[0]}`, ...lines.map((l) => `  ${l}`), `  ${legend}`, ''];
}

function fabrics(report: StatusReport): string[] {
  const rows = report.fabrics.map((f) => {
    const whole = Object.entries(f.freeWholeNodes).map(([c, n]) => `${t(c)} ${n}`).join(', ') || '-';
    return [t(f.name), `${f.nodes}`, `${f.reachable}`, whole];
  });
  return ['Fabrics', ...pad([['fabric', 'nodes', 'reachable', 'free whole nodes'], ...rows]).map((l) => `  ${l}`), ''];
}

function models(report: StatusReport): string[] {
  if (report.models.length === 0) return ['Models: none', ''];
  const rows = report.models.map((m) => [t(m.name), ...[m.desired, m.running, m.starting, m.failed].map(String)]);
  const lifecycle = lifecycleModelLines(report, t, '  ', (x) => x);
  return ['Models', ...pad([['model', 'desired', 'running', 'starting', 'failed'], ...rows]).map((l) => `  ${l}`), ...lifecycle, ''];
}

function unplaceable(report: StatusReport, paint: Paint): string[] {
  if (report.unplaceable.length === 0) return [];
  const { shown, more } = capList(report.unplaceable, MAX_TEXT_LIST);
  return [
    paint('31', 'Cannot be placed'),
    ...shown.map((u) => `  ${t(u.model)} (${u.missing} missing): ${t(u.reason)}`),
    ...(more ? [`  … and ${more} more`] : []),
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
    if (more) lines.push(`  … and ${more} more`);
  }
  if (unknown > 0) lines.push(`  idleness unknown for ${plural(unknown, 'running replica')}`);
  return [...lines, ''];
}

function nodeLine(label: string, nodes: (NodeSince | { node: string })[]): string[] {
  if (nodes.length === 0) return [];
  const { shown, more } = capList(nodes, MAX_TEXT_LIST);
  const names = shown.map((n) => ('since' in n ? `${t(n.node)} (since ${n.since === null ? 'unknown' : t(n.since)})` : t(n.node)));
  return [`  ${label} (${nodes.length}): ${names.join(', ')}${more ? `, and ${more} more` : ''}`];
}

function unhealthyLine(report: StatusReport): string[] {
  const bad = report.capacity.filter((c) => c.unhealthy > 0);
  if (bad.length === 0) return [];
  const total = bad.reduce((n, c) => n + c.unhealthy, 0);
  return [`  unhealthy GPUs (${total}): ${bad.map((c) => `${t(c.class)} ${c.unhealthy}`).join(', ')}`];
}

export function renderStatusText(report: StatusReport, opts: { color: boolean }): string {
  const paint = painter(opts.color);
  const items = attentionItems(report);
  const nodeLines = [
    ...nodeLine('lost', report.nodes.lost),
    ...nodeLine('unreachable', report.nodes.unreachable),
    ...nodeLine('cordoned', report.nodes.cordoned),
    ...unhealthyLine(report),
    ...otherGpusLine(report, t, '  GPUs in other hands'),
  ];
  const lines = [
    `${paint('1', t(report.cluster))}: observed ${t(report.observedAt)}`,
    '',
    ...(report.notify.warning === null ? [] : [paint('33', `warning: ${t(report.notify.warning)}`), '']),
    ...(items.length ? [paint('1', 'Needs attention'), ...items.map((i) => `  ${paint('33', '!')} ${i}`), ''] : ['Nothing needs attention.', '']),
    ...capacity(report, paint),
    ...fabrics(report),
    ...models(report),
    ...unplaceable(report, paint),
    ...idle(report),
    ...(nodeLines.length ? ['Nodes', ...nodeLines, ''] : []),
  ];
  while (lines[lines.length - 1] === '') lines.pop();
  return lines.join('\n') + '\n';
}
