// A replica's load and progress from its engine's Prometheus metrics
// (docs/protocol.md#engine-progress). Pure: the GET lives in metrics-probe.ts,
// the memory of the last sample in replica-store.ts.
//
// Why metrics and not /health: an engine can hang with /health answering 200
// (vLLM's scheduler stuck, NCCL wedged). Requests running while the progress
// counter (vLLM: generation tokens) does not move is what a hang looks like from
// outside; requests running and the counter moving, however slowly, is a busy
// engine, and no requests at all is an idle one. Neither of those is stalled.

import type { EngineMetricsEntry, ReplicaLoad } from '../types/snapshot.js';

/** A start without stallAfterSeconds: the router's default stallAfter too (docs/protocol.md). */
export const DEFAULT_STALL_AFTER_MS = 60_000;

export interface LoadSample {
  running: number;
  waiting: number;
  progress: number;
}

/** What the state directory keeps between reports (each report is a new process). */
export interface LoadRecord {
  /** The process this was seen of: a restarted engine starts its counters again. */
  pid: number;
  pidStartTime: string | null;
  /** The last sample, and when it was taken. */
  sample: LoadSample;
  at: string;
  /** When progress last grew, or the replica last had nothing running: the stall clock counts from here. */
  movedAt: string;
}

/** The value of one sample line's value field; null when it is not a finite number (NaN, +Inf, garbage). */
function value(text: string): number | null {
  const n = Number(text);
  return text.trim() !== '' && Number.isFinite(n) ? n : null;
}

/** `name{labels} value [timestamp]` → [name, value]; null for comments, blanks and lines that are not samples. */
function sampleLine(line: string): [string, number] | null {
  const t = line.trim();
  if (t === '' || t.startsWith('#')) return null;
  const nameEnd = t.search(/[{\s]/);
  if (nameEnd <= 0) return null;
  const name = t.slice(0, nameEnd);
  let rest = t.slice(nameEnd);
  if (rest.startsWith('{')) {
    // Label values are quoted and may hold `}`, spaces and escaped quotes: skip them as strings.
    let i = 1;
    let quoted = false;
    for (; i < rest.length; i++) {
      const c = rest[i];
      if (quoted && c === '\\') i++;
      else if (c === '"') quoted = !quoted;
      else if (!quoted && c === '}') break;
    }
    if (i >= rest.length) return null;
    rest = rest.slice(i + 1);
  }
  const v = value(rest.trim().split(/\s+/)[0] ?? '');
  return v === null ? null : [name, v];
}

/**
 * Each wanted metric's value, summed over its series (vLLM labels each engine of
 * a data-parallel server apart: the replica's load is their sum); a name with no
 * sample is absent from the map.
 */
export function parseMetrics(text: string, names: readonly string[]): Map<string, number> {
  const wanted = new Set(names);
  const sums = new Map<string, number>();
  for (const line of text.split('\n')) {
    const s = sampleLine(line);
    if (s === null || !wanted.has(s[0])) continue;
    sums.set(s[0], (sums.get(s[0]) ?? 0) + s[1]);
  }
  return sums;
}

/** The sample the entry names, or which names the text lacks. */
export function sampleOf(text: string, entry: EngineMetricsEntry): { sample: LoadSample } | { missing: string[] } {
  const names = [entry.running, entry.waiting, entry.progress];
  const values = parseMetrics(text, names);
  const missing = names.filter((n) => !values.has(n));
  if (missing.length > 0) return { missing: [...new Set(missing)] };
  // A negative gauge is nonsense from the engine; the report's bounds want >= 0.
  const at = (n: string): number => Math.max(0, values.get(n) ?? 0);
  return { sample: { running: at(entry.running), waiting: at(entry.waiting), progress: at(entry.progress) } };
}

/**
 * The load to report and the record to keep. The stall clock (`movedAt`) is
 * restarted by progress (any change of the counter: a restarted engine counts
 * from 0 again, which is not a hang) and by having nothing to do. Stalled once
 * requests have run for `stallAfterMs` with the clock not restarted;
 * `stalledSince` is that moment, the same in every report of one stall, so the
 * committed snapshot changes only when a replica becomes or stops being stalled.
 */
export function judgeLoad(
  prev: LoadRecord | null,
  process: { pid: number; pidStartTime: string | null },
  sample: LoadSample,
  now: Date,
  stallAfterMs: number,
): { load: ReplicaLoad; record: LoadRecord } {
  const same = prev !== null && prev.pid === process.pid && prev.pidStartTime === process.pidStartTime;
  const moved = !same || sample.running === 0 || sample.progress !== prev.sample.progress;
  const movedAt = moved ? now.toISOString() : prev.movedAt;
  const stalledAt = Date.parse(movedAt) + stallAfterMs;
  const stalled = !moved && sample.running > 0 && now.getTime() >= stalledAt;
  const load: ReplicaLoad = { ...sample, ...(stalled ? { stalledSince: new Date(stalledAt).toISOString() } : {}) };
  return { load, record: { pid: process.pid, pidStartTime: process.pidStartTime, sample, at: now.toISOString(), movedAt } };
}
