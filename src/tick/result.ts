// What one tick did, as plain data: the reconcile command prints it, the run
// loop logs it, the demo and the tests read it. Its `verdict` is the one
// answer to "did it act, and if not, why" (Flux's condition with a reason);
// the commit message says the same in words.

import type { GpuCounts } from '../ledger/buckets.js';
import type { ApplyOutcome } from '../apply/outcome.js';
import { compressHostlist } from '../text/compress-hostlist.js';
import type { StatusReport } from '../status/index.js';
import type { EventName } from '../types/config.js';
import type { Fleet } from '../types/fleet.js';
import type { Plan } from '../types/plan.js';

/** Why a tick that planned applied nothing. */
export type HoldReason =
  /** The plan breaks a safety rule (docs/safety.md); `llmgw apply --force` overrides it. */
  | 'blocked'
  /** cluster.yaml or models.yaml has uncommitted edits: only committed config is applied. */
  | 'uncommitted-edits'
  /** The lease would run out during the apply: another instance could act at the same time. */
  | 'lease-short'
  /** Another instance holds the lease: this one stands by. */
  | 'lease-elsewhere'
  /** A node or router refused this holder's epoch (another holder has acted since): it stopped acting and committed nothing. */
  | 'fenced'
  /** A person answered no at `llmgw apply`'s prompt. */
  | 'declined'
  /** Nobody answered `llmgw apply`'s prompt within --confirm-timeout. */
  | 'confirm-timeout';

export type TickVerdict =
  | { kind: 'config-invalid'; problems: number }
  | { kind: 'held'; reason: HoldReason; detail: string }
  | { kind: 'applied'; forced: boolean; outcome: ApplyOutcome };

export interface TickResult {
  /** Whether it acted, and why not when it did not. The fields below are the details the commands print. */
  verdict: TickVerdict;
  /** The config on the branch is invalid: nothing was gathered, planned or applied. */
  configInvalid: boolean;
  /** Config files with uncommitted edits: checked and planned, nothing applied; STATUS.md and events follow the committed config. */
  dirtyConfig: string[];
  /** The plan; with uncommitted edits, the plan of those edits (null when they are invalid). null when the committed config is invalid. */
  plan: Plan | null;
  blocked: string | null;
  /** Whether the plan was executed (not blocked, no uncommitted edits, valid config). */
  applied: boolean;
  outcome: ApplyOutcome | null;
  /** Names of the events detected this tick (delivered when notify is on). */
  events: string[];
  /** STATUS.md as rendered this tick. */
  status: string;
  /** The status report STATUS.md was rendered from (`status --json` of what was committed); null when the config is invalid. */
  report: StatusReport | null;
  /** The new commit, or null when STATUS.md and state.json were unchanged. */
  commit: string | null;
  pushed: boolean;
  /** Why the push failed (the commit is kept and pushed by a later tick); null otherwise. */
  pushError: string | null;
  /** The lease ran out, or would have during the apply: nothing applied (or nothing committed). */
  leaseLost: boolean;
  /** The GPUs by GPU-hour bucket as the tick left them, at the tick's time: what llmgw_gpu_seconds_total counts; absent when nothing was observed. */
  gpus?: { at: string; counts: GpuCounts };
}

export interface ReplicaCounts {
  running: number;
  starting: number;
  failed: number;
}

/** What happened to the fleet this tick, for the commit message: its events and the replicas moved off lost nodes. */
export interface TickNews {
  events: readonly { event: EventName; subject: string }[];
  /** Replicas started this tick in place of ones on a lost node. */
  moved: number;
  /** This tick's scaling and eviction decisions, each as the message names it (`scale qwen-7b 0→1 (12 waiting at rt-a)`). */
  decisions?: readonly string[];
}

/** Starts that took, per model, count as moved up to the replicas that model has on lost nodes. */
export function tickNews(events: TickNews['events'], fleet: Fleet, outcome: ApplyOutcome | null): TickNews {
  const lost = new Map<string, number>();
  for (const r of fleet.replicas) if (r.lost) lost.set(r.model, (lost.get(r.model) ?? 0) + 1);
  let moved = 0;
  for (const res of outcome?.results ?? []) {
    const left = lost.get(res.model) ?? 0;
    if (res.op !== 'start' || res.status !== 'ok' || left === 0) continue;
    lost.set(res.model, left - 1);
    moved += 1;
  }
  return { events, moved };
}

/** How each event reads in a commit message; events it does not name (config.invalid, apply.failed) are said elsewhere. */
const EVENT_WORDS: Partial<Record<EventName, string>> = {
  'node.lost': 'lost',
  'node.recovered': 'back',
  'model.down': 'down',
  'model.recovered': 'serving again',
  'model.unplaceable': 'cannot be placed',
};

/** `gpu-a[03-04] lost`, `llama, qwen down`: subjects of one event, at most three models named. */
function eventPhrases(events: TickNews['events']): string[] {
  const by = new Map<EventName, string[]>();
  for (const e of events) if (EVENT_WORDS[e.event] !== undefined) by.set(e.event, [...(by.get(e.event) ?? []), e.subject]);
  return [...by.entries()].map(([event, subjects]) => {
    const names = event.startsWith('node.')
      ? compressHostlist(subjects)
      : subjects.length > 3
        ? `${subjects.slice(0, 3).join(', ')} and ${subjects.length - 3} more`
        : subjects.join(', ');
    return `${names} ${EVENT_WORDS[event] ?? ''}`;
  });
}

/**
 * The commit message: what happened to the fleet, then what was applied, in
 * one line (`llmgw: gpu-a03 lost; 2 replicas moved (prod-eu)`,
 * `llmgw: started 2, stopped 1 (prod-eu)`); when nothing was, where the
 * replicas stand (`llmgw: status: 7 running (prod-eu)`).
 */
export function commitMessage(
  cluster: string | null,
  r: Pick<TickResult, 'configInvalid' | 'dirtyConfig' | 'blocked' | 'outcome'>,
  counts?: ReplicaCounts,
  news: TickNews = { events: [], moved: 0 },
): string {
  const where = cluster ? ` (${cluster})` : '';
  if (r.configInvalid) return `llmgw: config invalid, nothing applied${where}`;
  // A decision is the tick's own cause: it leads, before what happened to the fleet.
  const happened = [...(news.decisions ?? []), ...eventPhrases(news.events)];
  const lead = happened.length > 0 ? `${happened.join('; ')}; ` : '';
  if (r.dirtyConfig.length > 0) return `llmgw: ${lead}uncommitted edits to ${r.dirtyConfig.join(', ')}, nothing applied${where}`;
  if (r.blocked !== null) return `llmgw: ${lead}plan blocked, nothing applied${where}`;
  const o = r.outcome;
  const parts: string[] = [];
  const moved = Math.min(news.moved, o?.started ?? 0);
  if (moved > 0) parts.push(`${moved} ${moved === 1 ? 'replica' : 'replicas'} moved`);
  if (o && o.started - moved > 0) parts.push(`started ${o.started - moved}`);
  if (o && o.stopped > 0) parts.push(`stopped ${o.stopped}`);
  if (o && (o.drained ?? 0) > 0) parts.push(`draining ${o.drained ?? 0}`);
  if (o && o.failed > 0) parts.push(`${o.failed} failed`);
  if (o && o.deferred > 0) parts.push(`${o.deferred} waiting`);
  if (parts.length > 0) return `llmgw: ${lead}${parts.join(', ')}${where}`;
  if (happened.length > 0) return `llmgw: ${happened.join('; ')}${where}`;
  const states = counts ? (['running', 'starting', 'failed'] as const).filter((k) => counts[k] > 0).map((k) => `${counts[k]} ${k}`) : [];
  return `llmgw: status${counts ? `: ${states.length > 0 ? states.join(', ') : 'no replicas'}` : ''}${where}`;
}
