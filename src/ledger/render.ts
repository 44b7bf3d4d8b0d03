// The views of a GpuHours (docs/commands.md#llmgw-report): text for a terminal,
// JSON, and CSV in long format for a spreadsheet or a finance team's tooling.
// Every figure is printed with two decimals, the same in every view.

import { FLEET_BUCKETS, MODEL_BUCKETS } from './buckets.js';
import type { GpuHours } from './ledger.js';

/** The fleet's row in CSV: no model is named `*` (model names are `[a-z0-9._-]`). */
export const FLEET_ROW = '*';

const fixed = (n: number) => n.toFixed(2);

export function renderJson(h: GpuHours): string {
  return JSON.stringify({ version: 1, since: h.since, until: h.until, models: h.models, fleet: h.fleet }, null, 2) + '\n';
}

/** A CSV field, quoted when it must be (RFC 4180). */
function field(s: string): string {
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function renderCsv(h: GpuHours): string {
  const rows = ['model,bucket,gpu_hours'];
  for (const m of h.models) for (const b of MODEL_BUCKETS) rows.push(`${field(m.model)},${b},${fixed(m[b])}`);
  for (const b of FLEET_BUCKETS) rows.push(`${FLEET_ROW},${b},${fixed(h.fleet[b])}`);
  return rows.join('\n') + '\n';
}

function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
  return [line(header), ...rows.map(line)];
}

/** `escape`: for text from the repo (a model name), so nothing reaches the terminal as a control. */
export function renderText(h: GpuHours, escape: (s: string) => string = (s) => s): string {
  const out = [`GPU-hours from ${h.since} to ${h.until}`, ''];
  if (h.models.length === 0) out.push('No model held a GPU.');
  else {
    const rows = h.models.map((m) => [escape(m.model), ...MODEL_BUCKETS.map((b) => fixed(m[b])), fixed(m.serving + m.idle + m.transit)]);
    out.push(...table(['model', ...MODEL_BUCKETS, 'total'], rows));
  }
  out.push('');
  const total = FLEET_BUCKETS.reduce((s, b) => s + h.fleet[b], 0);
  out.push(...table(['fleet', 'gpu_hours'], [...FLEET_BUCKETS.map((b) => [b, fixed(h.fleet[b])]), ['total', fixed(total)]]));
  return out.join('\n') + '\n';
}
