// What a models.yaml range looks like in the status (docs/status.md): the range,
// the count this tick decided, whether the model sleeps or wakes, and the last
// decision with its time and reason — the "why" of a count no PR wrote.

import type { Fleet } from '../types/fleet.js';
import type { ScalingRecord } from '../types/state.js';
import type { ModelRow, ModelScale } from './types.js';

/** model -> requests waiting at the routers that answered (docs/placement.md#in-flight-and-waiting). */
function waitingByModel(fleet: Fleet): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of fleet.routers ?? []) {
    if (!r.reachable) continue;
    for (const [model, w] of Object.entries(r.report.waiting ?? {})) out.set(model, (out.get(model) ?? 0) + Math.max(0, w.count));
  }
  return out;
}

/**
 * Asleep: at 0 by its range with no replica and nothing waiting — not down, no
 * attention. Waking: asked for and nothing running yet (waiting, or a replica
 * starting). Awake otherwise.
 */
export function withScale(fleet: Fleet, rows: ModelRow[], scaling: Readonly<Record<string, ScalingRecord>> | undefined): ModelRow[] {
  const ranged = new Map(fleet.config.models.flatMap((m) => (m.scale ? [[m.name, m.scale] as const] : [])));
  if (ranged.size === 0) return rows;
  const waiting = waitingByModel(fleet);
  return rows.map((row) => {
    const range = ranged.get(row.name);
    if (!range) return row;
    const w = waiting.get(row.name) ?? 0;
    const present = row.running + row.starting + row.failed + (row.draining ?? 0);
    const state: ModelScale['state'] =
      row.desired === 0 && present === 0 && w === 0 ? 'asleep' : row.running === 0 && (w > 0 || row.starting > 0) ? 'waking' : 'awake';
    const last = scaling?.[row.name]?.last ?? null;
    return { ...row, scale: { min: range.min, max: range.max, state, waiting: w, last } };
  });
}

/** `0–2 (now 1)`, `0–2 (now 0, asleep)`, `0–2 (now 1, waking)`: the Desired cell of a ranged model. */
export function desiredText(row: ModelRow): string {
  const s = row.scale;
  if (!s) return `${row.desired}`;
  const word = s.state === 'awake' ? '' : `, ${s.state}`;
  return `${s.min}–${s.max} (now ${row.desired}${word})`;
}

/**
 * The line under the Models table: `qwen-7b: asleep (0–2); last scaled 1→0 at
 * 2026-12-01T12:00:00Z (qwen-7b-0 idle 10m)`, `qwen-7b: waking (12 waiting); …`;
 * null for a fixed count, or an awake model that has made no decision yet.
 */
export function lastScaleText(row: ModelRow): string | null {
  const s = row.scale;
  if (!s) return null;
  const head = s.state === 'asleep' ? `asleep (${s.min}–${s.max})` : s.state === 'waking' ? `waking (${s.waiting} waiting)` : null;
  const last = s.last ? `scaled ${s.last.from}→${s.last.to} at ${s.last.at} (${s.last.reason})` : null;
  if (head === null && last === null) return null;
  return `${row.name}: ${[head, last === null ? null : head === null ? last : `last ${last}`].filter((x) => x !== null).join('; ')}`;
}
