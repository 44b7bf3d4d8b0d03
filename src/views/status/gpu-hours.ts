// STATUS.md's "GPU-hours" (docs/status.md#gpu-hours): closed UTC days only, so
// the section is computed once, by the first tick of a UTC date, and copied by
// every later tick that date. The copy is made by reading the section back
// (parseGpuHoursSection) and rendering it again: the two live here, side by
// side, and a test holds that the round trip gives the same bytes — so a copy
// never churns, and `plan --base` can copy REF's section from its STATUS.md
// alone (a shallow PR checkout has no history to recompute it from).

import { md } from '../../text/markdown-escape.js';
import type { ClosedDaysHours, FleetDayHours, ModelDayHours, SpanHours } from '../../types/gpu-hours.js';
import { MAX_ROWS, details, table } from './markdown-blocks.js';

export const GPU_HOURS_HEADING = '## GPU-hours';

const FLEET_KEYS = ['serving', 'idle', 'transit', 'free', 'unhealthy', 'other', 'unreachable', 'cordoned', 'unobserved'] as const;
const MODEL_HEAD = ['Model', 'Serving yesterday', 'Idle yesterday', 'Idle share', 'Serving 7 days', 'Idle 7 days', 'Idle share'];
const FLEET_HEAD = ['Fleet', 'Yesterday', '7 days'];
const FLEET_ROW = '**Fleet**';
const DAY_MS = 86_400_000;

const fixed = (n: number) => n.toFixed(2);
const share = (s: number | null) => (s === null ? '—' : `${Math.round(s * 100)}%`);
const day = (iso: string) => iso.slice(0, 10);
const lastDay = (until: string) => new Date(Date.parse(until) - DAY_MS).toISOString().slice(0, 10);

function modelCells(y: ModelDayHours | FleetDayHours | undefined, w: ModelDayHours | FleetDayHours | undefined): string[] {
  const cells = (h: ModelDayHours | FleetDayHours | undefined) => (h ? [fixed(h.serving), fixed(h.idle), share(h.idleShare)] : ['0.00', '0.00', '—']);
  return [...cells(y), ...cells(w)];
}

const MODEL_ALIGN = ['l', 'r', 'r', 'r', 'r', 'r', 'r'] as const;

/** Past MAX_ROWS models the rest (and the fleet's row) fold, as STATUS.md's other tables do; every row is still there to read back. */
function modelTables(rows: string[][]): string[] {
  if (rows.length <= MAX_ROWS + 1) return table(MODEL_HEAD, [...MODEL_ALIGN], rows);
  const rest = rows.slice(MAX_ROWS);
  return [
    ...table(MODEL_HEAD, [...MODEL_ALIGN], rows.slice(0, MAX_ROWS)),
    '',
    ...details(`${rest.length - 1} more models, and the fleet`, table(MODEL_HEAD, [...MODEL_ALIGN], rest)),
  ];
}

export function renderGpuHoursSection(h: ClosedDaysHours): string[] {
  const names = [...new Set([...h.yesterday.models, ...h.last7Days.models].map((m) => m.model))].sort();
  const find = (s: SpanHours, name: string) => s.models.find((m) => m.model === name);
  const rows = [
    ...names.map((n) => [md(n), ...modelCells(find(h.yesterday, n), find(h.last7Days, n))]),
    [FLEET_ROW, ...modelCells(h.yesterday.fleet, h.last7Days.fleet)],
  ];
  const fleetRows = FLEET_KEYS.map((k) => [k, fixed(h.yesterday.fleet[k]), fixed(h.last7Days.fleet[k])]);
  const pending =
    h.recomputedOn === undefined
      ? []
      : [`These are the figures of ${h.computedOn}: the first tick of ${h.recomputedOn} recomputes them (for a pull request, after merge).`, ''];
  return [
    GPU_HOURS_HEADING,
    '',
    `Closed UTC days, computed on ${h.computedOn} by its first tick from llmgw's commits: yesterday is ${day(h.yesterday.since)}, ` +
      `the last 7 days are ${day(h.last7Days.since)} to ${lastDay(h.last7Days.until)}. Idle share is idle / (serving + idle); ` +
      '`llmgw report` counts any range.',
    '',
    ...pending,
    ...modelTables(rows),
    '',
    ...table(FLEET_HEAD, ['l', 'r', 'r'], fleetRows),
    '',
  ];
}

/** md() undone: the backslash escapes and the two entities it makes. */
function unmd(s: string): string {
  return s.replace(/\\(.)/g, '$1').replace(/&lt;/g, '<').replace(/&amp;/g, '&');
}

function cellsOf(line: string): string[] {
  return line
    .slice(2, -2)
    .split(/(?<!\\) \| /)
    .map((c) => c.trim());
}

function num(s: string | undefined): number | null {
  return s !== undefined && /^\d+\.\d\d$/.test(s) ? Number(s) : null;
}

function shareOf(s: string | undefined): number | null | undefined {
  if (s === '—') return null;
  const m = s === undefined ? null : /^(\d+)%$/.exec(s);
  return m?.[1] === undefined ? undefined : Number(m[1]) / 100;
}

/** Model rows (and the fleet's) of the first table: [yesterday, 7 days] each; null on anything unexpected. */
function modelTable(lines: string[]): { models: [ModelDayHours, ModelDayHours][]; fleet: [number | null, number | null] } | null {
  const models: [ModelDayHours, ModelDayHours][] = [];
  for (const line of lines) {
    const c = cellsOf(line);
    if (c.length !== 7) return null;
    const [ys, yi, yh, ws, wi, wh] = [num(c[1]), num(c[2]), shareOf(c[3]), num(c[4]), num(c[5]), shareOf(c[6])];
    if (ys === null || yi === null || yh === undefined || ws === null || wi === null || wh === undefined) return null;
    if (c[0] === FLEET_ROW) return { models, fleet: [yh, wh] };
    const model = unmd(c[0] ?? '');
    models.push([
      { model, serving: ys, idle: yi, idleShare: yh },
      { model, serving: ws, idle: wi, idleShare: wh },
    ]);
  }
  return null;
}

/** The rows of every table whose header row is `head` (a folded table repeats it), in order; null when there is none. */
function rowsAfter(section: string[], head: string[]): string[] | null {
  const header = `| ${head.join(' | ')} |`;
  const starts = section.flatMap((line, i) => (line === header ? [i + 2] : []));
  if (starts.length === 0) return null;
  const rows: string[] = [];
  for (const start of starts) {
    for (const row of section.slice(start)) {
      if (!row.startsWith('| ')) break;
      rows.push(row);
    }
  }
  return rows;
}

/**
 * The GPU-hours a STATUS.md shows, read back; null when it has no such
 * section or the section is not one llmgw wrote (edited by hand): then the
 * next tick computes it afresh rather than copy what it cannot vouch for.
 */
export function parseGpuHoursSection(status: string): ClosedDaysHours | null {
  const lines = status.split('\n');
  const start = lines.indexOf(GPU_HOURS_HEADING);
  if (start < 0) return null;
  const end = lines.findIndex((l, i) => i > start && l.startsWith('## '));
  const section = lines.slice(start, end < 0 ? lines.length : end);
  const on = /computed on (\d{4}-\d\d-\d\d) by its first tick/.exec(section.join('\n'))?.[1];
  if (on === undefined || Number.isNaN(Date.parse(`${on}T00:00:00.000Z`))) return null;
  const recomputed = /the first tick of (\d{4}-\d\d-\d\d) recomputes them/.exec(section.join('\n'))?.[1];
  const modelRows = rowsAfter(section, MODEL_HEAD);
  const fleetRows = rowsAfter(section, FLEET_HEAD);
  if (modelRows === null || fleetRows === null || fleetRows.length !== FLEET_KEYS.length) return null;
  const m = modelTable(modelRows);
  if (m === null) return null;
  const y: Partial<FleetDayHours> = {};
  const w: Partial<FleetDayHours> = {};
  for (const [i, key] of FLEET_KEYS.entries()) {
    const c = cellsOf(fleetRows[i] ?? '');
    const a = num(c[1]);
    const b = num(c[2]);
    if (c.length !== 3 || c[0] !== key || a === null || b === null) return null;
    y[key] = a;
    w[key] = b;
  }
  const midnight = Date.parse(`${on}T00:00:00.000Z`);
  const iso = (ms: number) => new Date(ms).toISOString();
  // Every model both tables had is listed in both spans: a model with no hours in one shows 0.00 there.
  const spanOf = (k: 0 | 1, fleet: Partial<FleetDayHours>, idleShare: number | null, since: number): SpanHours => ({
    since: iso(since),
    until: iso(midnight),
    models: m.models.map((pair) => pair[k]),
    fleet: { ...(fleet as Omit<FleetDayHours, 'idleShare'>), idleShare },
  });
  return {
    computedOn: on,
    yesterday: spanOf(0, y, m.fleet[0], midnight - DAY_MS),
    last7Days: spanOf(1, w, m.fleet[1], midnight - 7 * DAY_MS),
    ...(recomputed === undefined ? {} : { recomputedOn: recomputed }),
  };
}
