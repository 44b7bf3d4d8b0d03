// The tables of the markdown plan (render-markdown.ts): one row per action
// while that fits, else one row per model — starts with their count, nodes as
// a compressed hostlist and weights tiers; stops with every replica id as a
// compressed list, so no stop is left out until the last level caps the rows
// (and each id list at 2,000 characters), saying how many more. Text from nodes and configs is
// escaped; node lists and ids sit in code spans, where brackets read as they are.

import { compressHostlist } from '../../text/compress-hostlist.js';
import { md } from '../../text/markdown-escape.js';
import type { Action, StartAction, StopAction, Unplaceable, WeightsLocality } from '../../types/plan.js';
import { actionWhy, placementText, stopVerb } from './render-common.js';

/** How much detail fits: render-markdown.ts tries the levels in order until the comment fits. */
export interface Detail {
  /** Starts one row each up to this many in a table; past it, one row per model. */
  startRows: number;
  /** Stops one row each; false: one row per model and reason. */
  stopRows: boolean;
  /** Longest cell text before it is cut with "…". */
  cell: number;
  /** Longest list of replica ids in a grouped stop row before it is cut (Infinity: never). */
  ids: number;
  /** Most rows a table shows before "… and N more" (Infinity: all). Only the last resort sets it. */
  rows: number;
}

/** At most `d.rows` of the rows, and a row saying how many are left out. */
function capped(rows: string[], d: Detail, columns: number): string[] {
  if (rows.length <= d.rows) return rows;
  const more = `| … and ${rows.length - d.rows} more (llmgw plan --format json lists every one) |${' |'.repeat(columns - 1)}`;
  return [...rows.slice(0, d.rows), more];
}

export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}

/** A code span that nothing inside can close or break out of a table cell. */
export function codeCell(text: string): string {
  return '`' + text.replace(/[`|\r\n]/g, '') + '`';
}

function byName(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function actionRow(a: Action, d: Detail): string {
  const [verb, port, weights] = a.op === 'start' ? ['+ start', String(a.port), a.weights] : [`− ${stopVerb(a)}`, '', ''];
  return `| ${verb} | ${md(clip(a.replica, d.cell))} | ${md(clip(a.model, d.cell))} | ${codeCell(clip(placementText(a.placement), d.cell))} | ${port} | ${weights} | ${md(clip(actionWhy(a), d.cell))} |`;
}

const ACTION_HEAD = ['| | replica | model | where | port | weights | why |', '|---|---|---|---|---|---|---|'];

function tiers(starts: StartAction[]): string {
  const order: WeightsLocality[] = ['node', 'fabric', 'none'];
  return order
    .map((t) => [t, starts.filter((s) => s.weights === t).length] as const)
    .filter(([, n]) => n > 0)
    .map(([t, n]) => `${t} ${n}`)
    .join(', ');
}

function startGroups(starts: StartAction[], d: Detail): string[] {
  const models = [...new Set(starts.map((s) => s.model))].sort(byName);
  const rows = models.map((model) => {
    const mine = starts.filter((s) => s.model === model);
    const nodes = compressHostlist(mine.flatMap((s) => s.placement.map((p) => p.node)));
    return `| ${md(clip(model, d.cell))} | ${mine.length} | ${codeCell(clip(nodes, d.cell))} | ${tiers(mine)} |`;
  });
  return ['| + start, per model | replicas | nodes | weights |', '|---|---:|---|---|', ...capped(rows, d, 4)];
}

function stopGroups(stops: StopAction[], d: Detail): string[] {
  const groups = new Map<string, StopAction[]>();
  for (const s of stops) {
    const key = `${s.model}\u0000${s.reason}\u0000${s.waitFor.length > 0}\u0000${stopVerb(s)}`;
    groups.set(key, [...(groups.get(key) ?? []), s]);
  }
  const rows = [...groups]
    .sort(([a], [b]) => byName(a, b))
    .flatMap(([, mine]) => {
      const first = mine[0];
      if (first === undefined) return [];
      const drain = first.phase === 'drain' ? '; out of every router now, each stopped once drained' : '';
      const why = (first.waitFor.length > 0 ? `${first.reason}; each once its replacement runs` : first.reason) + drain;
      const nodes = compressHostlist(mine.flatMap((s) => s.placement.map((p) => p.node)));
      const ids = compressHostlist(mine.map((s) => s.replica));
      return `| ${md(clip(first.model, d.cell))} | ${mine.length} | ${codeCell(clip(ids, d.ids))} | ${codeCell(clip(nodes, d.cell))} | ${md(clip(why, d.cell))} |`;
    });
  return ['| − stop, per model | replicas | ids | nodes | why |', '|---|---:|---|---|---|', ...capped(rows, d, 5)];
}

/** One group of actions (starts first, then stops) as one or two tables. */
export function actionTables(actions: readonly Action[], d: Detail): string[] {
  const starts = actions.filter((a): a is StartAction => a.op === 'start');
  const stops = actions.filter((a): a is StopAction => a.op === 'stop');
  const groupStarts = starts.length > d.startRows;
  const out: string[] = [];
  const rows: string[] = [];
  if (groupStarts) out.push(...startGroups(starts, d));
  else rows.push(...starts.map((a) => actionRow(a, d)));
  if (d.stopRows) rows.push(...stops.map((a) => actionRow(a, d)));
  if (rows.length > 0) out.push(...(out.length > 0 ? [''] : []), ...ACTION_HEAD, ...capped(rows, d, 7));
  if (!d.stopRows && stops.length > 0) out.push(...(out.length > 0 ? [''] : []), ...stopGroups(stops, d));
  return out;
}

export function unplaceableTable(list: readonly Unplaceable[], d: Detail): string[] {
  const rows = list.map((u) => `| ${md(clip(u.model, d.cell))} | ${u.missing} | ${md(clip(u.reason, d.cell))} |`);
  return ['| model | missing | why |', '|---|---:|---|', ...capped(rows, d, 3)];
}
