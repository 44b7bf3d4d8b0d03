// The console's GPU-hours page (docs/commands.md#llmgw-console): the fleet's
// GPU-hours day by day, the open UTC day included, as a stacked-bar chart in
// inline SVG (shapes with classes: no script, no style attribute, nothing
// fetched), then the same figures as tables, per model over the 7 closed days
// and today. The figures are `llmgw report`'s for each day.

import { FLEET_BUCKETS, type FleetBucket, type ModelBucket } from '../../ledger/buckets.js';
import type { DayHours } from '../../ledger/days.js';
import { html, join, link, pathOf, type Html } from '../html.js';
import { table, type TableRow } from './layout.js';

const W = 800;
const H = 240;
const TOP = 10;
const BOTTOM = 30;
const fixed = (n: number) => n.toFixed(2);

function share(serving: number, idle: number): string {
  return serving + idle > 0 ? `${Math.round((idle / (serving + idle)) * 100)}%` : '—';
}

const dayTotal = (d: DayHours) => FLEET_BUCKETS.reduce((s, b) => s + d.fleet[b], 0);
const dayLabel = (d: DayHours) => (d.open ? `${d.day} (today, open)` : d.day);

/** One stacked bar per day, bucket by bucket from the bottom, scaled to the largest day. */
export function gpuHoursChart(days: readonly DayHours[]): Html {
  const max = Math.max(1, ...days.map(dayTotal));
  const slot = W / Math.max(1, days.length);
  const barW = Math.round(slot * 0.6);
  const plot = H - TOP - BOTTOM;
  const bars = days.map((d, i) => {
    const x = Math.round(i * slot + (slot - barW) / 2);
    let y = H - BOTTOM;
    const rects: Html[] = [];
    for (const b of FLEET_BUCKETS) {
      const v = d.fleet[b];
      if (v <= 0) continue;
      const h = (v / max) * plot;
      y -= h;
      rects.push(
        html`<rect class="g-${b}" x="${x}" y="${y.toFixed(2)}" width="${barW}" height="${h.toFixed(2)}"><title>${dayLabel(d)}: ${fixed(v)} ${b}</title></rect>`,
      );
    }
    const label = html`<text class="${d.open ? 'day open' : 'day'}" x="${Math.round(i * slot + slot / 2)}" y="${H - 10}" text-anchor="middle">${d.open ? 'today' : d.day.slice(5)}</text>`;
    return html`<g data-day="${d.day}">${join(rects)}${label}</g>`;
  });
  const summary = days.map((d) => `${dayLabel(d)}: ${fixed(d.fleet.serving)} serving, ${fixed(d.fleet.idle)} idle of ${fixed(dayTotal(d))}`).join('; ');
  return html`<svg class="chart" viewBox="0 0 ${W} ${H}" role="img" aria-label="GPU-hours per UTC day by bucket. ${summary}"><line class="axis" x1="0" y1="${H - BOTTOM}" x2="${W}" y2="${H - BOTTOM}"></line>${join(bars)}</svg>`;
}

const legend = html`<p class="legend">${join(
  FLEET_BUCKETS.map((b) => html`<span class="key g-${b}">${b}</span>`),
  ' ',
)}</p>`;

function fleetTable(days: readonly DayHours[]): Html {
  const head = ['Day', ...FLEET_BUCKETS, 'total', 'idle share'].map((h, i) => (i === 0 ? h : { value: h, num: true }));
  const rows: TableRow[] = days.map((d) => ({
    key: d.day,
    cells: [
      dayLabel(d),
      ...FLEET_BUCKETS.map((b: FleetBucket) => ({ value: fixed(d.fleet[b]), num: true })),
      { value: fixed(dayTotal(d)), num: true },
      { value: share(d.fleet.serving, d.fleet.idle), num: true },
    ],
  }));
  return table('The fleet, GPU-hours per UTC day', head, rows);
}

function modelTable(days: readonly DayHours[]): Html {
  const closed = days.filter((d) => !d.open);
  const open = days.find((d) => d.open);
  const names = [...new Set(days.flatMap((d) => d.models.map((m) => m.model)))].sort();
  const sum = (ds: readonly DayHours[], model: string, b: ModelBucket) => ds.reduce((s, d) => s + (d.models.find((m) => m.model === model)?.[b] ?? 0), 0);
  const rows: TableRow[] = names.map((model) => {
    const s7 = sum(closed, model, 'serving');
    const i7 = sum(closed, model, 'idle');
    const st = open ? sum([open], model, 'serving') : 0;
    const it = open ? sum([open], model, 'idle') : 0;
    return {
      key: model,
      cells: [
        link(pathOf('models', model), model),
        ...[s7, i7, sum(closed, model, 'transit')].map((v) => ({ value: fixed(v), num: true })),
        { value: share(s7, i7), num: true },
        ...[st, it].map((v) => ({ value: fixed(v), num: true })),
        { value: share(st, it), num: true },
      ],
    };
  });
  const head = ['Model', 'Serving 7 days', 'Idle 7 days', 'Transit 7 days', 'Idle share', 'Serving today', 'Idle today', 'Idle share today'].map((h, i) =>
    i === 0 ? h : { value: h, num: true },
  );
  return rows.length === 0 ? html`<p>No model held a GPU in these days.</p>` : table('Per model: the 7 closed days, and today so far', head, rows);
}

/** The page's body; `days` oldest first, the open day last. `available`: false when the directory has no git history. */
export function gpuHoursBody(days: readonly DayHours[], available: boolean, warnings: readonly string[] = []): Html {
  if (!available)
    return html`<p>This directory is not a git checkout, so there is no history to count GPU-hours from. Run the console in the reconciler's checkout, or in any clone of the config repo.</p>`;
  const first = days[0];
  const notes =
    warnings.length === 0
      ? ''
      : html`<details><summary>${warnings.length} commit(s) not counted</summary><ul>${join(warnings.map((w) => html`<li>${w}</li>`))}</ul></details>`;
  return html`<p>GPU-hours from llmgw's commits${first ? html` since ${first.day}` : ''}, day by UTC day, today's open day to now: between two commits the fleet counts as the earlier one saw it, for at most 25 hours; the rest is <em>unobserved</em>. <code>llmgw report</code> prints the same for any range; STATUS.md shows the closed days.</p>
<section id="chart"><h2>By day</h2>${gpuHoursChart(days)}${legend}</section>
<section id="fleet"><h2>The fleet</h2>${fleetTable(days)}</section>
<section id="models"><h2>Models</h2>${modelTable(days)}</section>${notes}`;
}
