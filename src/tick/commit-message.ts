// The commit message of a tick (docs/status.md#commits): `git log
// --oneline` is the fleet's history as an operator reads it, so the first line
// names the change a reader cares about — a node unreachable (and why), lost
// or back, a quarantine, a scale or eviction, replicas started or stopped by
// model — and the body lists every action, one per line, with its GPUs. A tick
// that changed none of these but still commits (replicas became running, an
// idle replica, a new UTC date) says where the replicas stand.
//
// Why the node's reason class is compared with the last commit's snapshot and
// not read from events: an outage whose cause changes (refused → network: sshd
// was down, now the host is) is news to an operator, and fires no event.

import type { ApplyOutcome, ActionResult } from '../apply/outcome.js';
import { compressHostlist } from '../text/compress-hostlist.js';
import { clip, escapeTerminal } from '../text/terminal-text.js';
import { REASON_LABEL } from '../text/reason-labels.js';
import type { EventName } from '../types/config.js';
import type { Fleet } from '../types/fleet.js';
import type { Action, Plan } from '../types/plan.js';
import type { ReplicaState, Snapshot } from '../types/snapshot.js';
import type { State } from '../types/state.js';
import { indexRanges } from '../views/plan/render-common.js';
import type { TickResult } from './result.js';

export interface ReplicaCounts {
  running: number;
  starting: number;
  failed: number;
}

/** What happened to the fleet this tick, each as the message names it. */
export interface TickNews {
  /** Scaling and eviction decisions (`scale qwen-7b 0→1 (12 waiting at rt-a)`): the tick's own causes, first. */
  decisions: readonly string[];
  /** `gpu-3 unreachable (refused)`, `gpu-3 unreachable (network, was refused)`, `gpu-a[03-04] lost`, `gpu-b01 back`. */
  nodes: readonly string[];
  /** `gpu-2[3] quarantined (Xid 79)`, `gpu-2[3] out of quarantine`. */
  quarantine: readonly string[];
  /** `llama down`, `qwen serving again`, `ghost cannot be placed`. */
  models: readonly string[];
  /** What was applied, by model: `started llama ×2`, `moved qwen`, `stopped old`, `draining phi`, `failed to start m`. */
  applied: readonly string[];
  /** Replicas whose state changed without an action: `llama ×2 running`, `qwen failed`. */
  settled: readonly string[];
  /** The body: one line per action of the apply, `start m-2 on gpu-b03 [4-7]`. */
  actions: readonly string[];
}

export const NO_NEWS: TickNews = { decisions: [], nodes: [], quarantine: [], models: [], applied: [], settled: [], actions: [] };

export interface NewsInput {
  events: readonly { event: EventName; subject: string }[];
  /** The fleet as this tick observed it (before the apply). */
  fleet: Fleet;
  /** The snapshot the last commit left (`.llmgw/observed.json`); null on a first tick. */
  previous: Snapshot | null;
  /** state.json as committed, and as this tick leaves it. */
  committed: State;
  state: State;
  plan: Plan | null;
  outcome: ApplyOutcome | null;
  decisions: readonly string[];
}

/** `llama ×2, qwen`: models in name order, at most three named. */
export function byModel(models: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const m of models) counts.set(m, (counts.get(m) ?? 0) + 1);
  const named = [...counts.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([m, n]) => (n > 1 ? `${m} ×${n}` : m));
  return named.length > 3 ? `${named.slice(0, 3).join(', ')} and ${named.length - 3} more` : named.join(', ');
}

function grouped(by: Map<string, string[]>, order: readonly string[]): string[] {
  return order.flatMap((what) => {
    const names = by.get(what);
    return names === undefined ? [] : [`${compressHostlist(names)} ${what}`];
  });
}

function push(by: Map<string, string[]>, order: string[], what: string, name: string): void {
  if (!by.has(what)) order.push(what);
  by.set(what, [...(by.get(what) ?? []), name]);
}

/** Node changes since the last commit, grouped by what happened (one hostlist each). */
export function nodeNews(fleet: Fleet, previous: Snapshot | null, events: NewsInput['events']): string[] {
  const was = new Map((previous?.nodes ?? []).map((n) => [n.name, n]));
  const lost = new Set(events.filter((e) => e.event === 'node.lost').map((e) => e.subject));
  const recovered = new Set(events.filter((e) => e.event === 'node.recovered').map((e) => e.subject));
  const by = new Map<string, string[]>();
  const order: string[] = [];
  for (const node of [...fleet.nodes].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const before = was.get(node.name);
    if (lost.has(node.name)) push(by, order, 'lost', node.name);
    else if (node.condition === 'reachable') {
      if (recovered.has(node.name) || (before !== undefined && !before.reachable)) push(by, order, 'back', node.name);
    } else {
      const reason = REASON_LABEL[node.reason ?? 'unknown'];
      if (before === undefined || before.reachable) push(by, order, `unreachable (${reason})`, node.name);
      else {
        const earlier = REASON_LABEL[before.reason ?? 'unknown'];
        if (earlier !== reason) push(by, order, `unreachable (${reason}, was ${earlier})`, node.name);
      }
    }
  }
  return grouped(by, order);
}

/** GPUs quarantined, or out of quarantine, since the last commit. */
export function quarantineNews(committed: State, state: State): string[] {
  const before = committed.quarantine ?? {};
  const after = state.quarantine ?? {};
  const lines: string[] = [];
  for (const key of Object.keys(after).sort()) {
    const q = after[key];
    if (q !== undefined && before[key] === undefined) lines.push(`${q.node}[${q.index}] quarantined (Xid ${q.code})`);
  }
  for (const key of Object.keys(before).sort()) {
    const q = before[key];
    if (q !== undefined && after[key] === undefined) lines.push(`${q.node}[${q.index}] out of quarantine`);
  }
  return lines;
}

/** How each model event reads; the node events are said by nodeNews, config.invalid and apply.failed elsewhere. */
const MODEL_WORDS: Partial<Record<EventName, string>> = {
  'model.down': 'down',
  'model.recovered': 'serving again',
  'model.unplaceable': 'cannot be placed',
};

function modelNews(events: NewsInput['events']): string[] {
  const by = new Map<EventName, string[]>();
  for (const e of events) if (MODEL_WORDS[e.event] !== undefined) by.set(e.event, [...(by.get(e.event) ?? []), e.subject]);
  return [...by.entries()].map(([event, models]) => `${byModel(models)} ${MODEL_WORDS[event] ?? ''}`);
}

/** Starts that took, per model, count as moved up to the replicas that model has on lost nodes. */
function appliedNews(fleet: Fleet, outcome: ApplyOutcome | null): string[] {
  const results = outcome?.results ?? [];
  const onLost = new Map<string, number>();
  for (const r of fleet.replicas) if (r.lost) onLost.set(r.model, (onLost.get(r.model) ?? 0) + 1);
  const started: string[] = [];
  const moved: string[] = [];
  for (const r of results.filter((x) => x.op === 'start' && x.status === 'ok')) {
    const left = onLost.get(r.model) ?? 0;
    if (left > 0) {
      onLost.set(r.model, left - 1);
      moved.push(r.model);
    } else started.push(r.model);
  }
  const of = (pick: (r: ActionResult) => boolean) => results.filter(pick).map((r) => r.model);
  const phrases: [string, string[]][] = [
    ['moved', moved],
    ['started', started],
    ['stopped', of((r) => r.op === 'stop' && r.status === 'ok' && r.phase !== 'drain')],
    ['draining', of((r) => r.op === 'stop' && r.status === 'ok' && r.phase === 'drain')],
    ['failed to start', of((r) => r.op === 'start' && r.status === 'failed')],
    ['failed to stop', of((r) => r.op === 'stop' && r.status === 'failed')],
    ['waiting to stop', of((r) => r.status === 'deferred')],
  ];
  return phrases.filter(([, models]) => models.length > 0).map(([verb, models]) => `${verb} ${byModel(models)}`);
}

/** Replicas that became running or failed since the last commit, by model. */
function settledNews(fleet: Fleet, previous: Snapshot | null): string[] {
  const was = new Map<string, ReplicaState>();
  for (const n of previous?.nodes ?? []) {
    const report = n.reachable ? n.report : n.lastReport;
    for (const r of report?.replicas ?? []) if ((r.rank ?? 0) === 0) was.set(r.id, r.state);
  }
  const now: Record<'running' | 'failed', string[]> = { running: [], failed: [] };
  for (const r of fleet.replicas) {
    if (r.lost || r.state === 'starting' || was.get(r.id) === r.state) continue;
    now[r.state].push(r.model);
  }
  return (['running', 'failed'] as const).filter((s) => now[s].length > 0).map((s) => `${byModel(now[s])} ${s}`);
}

/** `gpu-b03 [4-7]`, `gpu-a01 [0-7], gpu-a02 [0-7]`. */
function where(action: Action | undefined, nodes: readonly string[]): string {
  if (action === undefined) return nodes.join(', ');
  return action.placement.map((p) => `${p.node} [${indexRanges(p.gpus)}]`).join(', ');
}

/** One line per action the apply took up: `start m-2 on gpu-b03 [4-7]`, `drain q-0 on gpu-a01 [0]`. */
export function actionLines(plan: Plan | null, outcome: ApplyOutcome | null): string[] {
  return (outcome?.results ?? []).map((r) => {
    const action = plan?.actions.find((a) => a.op === r.op && a.replica === r.replica);
    const verb = r.op === 'stop' && r.phase === 'drain' ? 'drain' : r.op;
    const line = `${verb} ${r.replica} on ${where(action, r.nodes)}`;
    if (r.status === 'failed') return `${line} (failed: ${(r.error ?? '').split('\n')[0] ?? ''})`;
    if (r.status === 'deferred') return `${line} (waiting${r.waitingFor?.length ? ` for ${r.waitingFor.join(', ')}` : r.reason ? `: ${r.reason}` : ''})`;
    return line;
  });
}

export function tickNews(input: NewsInput): TickNews {
  return {
    decisions: input.decisions,
    nodes: nodeNews(input.fleet, input.previous, input.events),
    quarantine: quarantineNews(input.committed, input.state),
    models: modelNews(input.events),
    applied: appliedNews(input.fleet, input.outcome),
    settled: settledNews(input.fleet, input.previous),
    actions: actionLines(input.plan, input.outcome),
  };
}

/**
 * The commit message: what happened, in one line (`llmgw: gpu-a03 unreachable
 * (refused); moved llama (prod-eu)`), then the actions one per line. When
 * nothing happened that a reader would look for, where the replicas stand
 * (`llmgw: status: 7 running (prod-eu)`).
 */
function composeMessage(
  cluster: string | null,
  r: Pick<TickResult, 'configInvalid' | 'dirtyConfig' | 'blocked' | 'outcome'>,
  counts?: ReplicaCounts,
  news: TickNews = NO_NEWS,
): string {
  const where = cluster ? ` (${cluster})` : '';
  if (r.configInvalid) return `llmgw: config invalid, nothing applied${where}`;
  // A decision is the tick's own cause: it leads, before what happened to the fleet.
  const happened = [...news.decisions, ...news.nodes, ...news.quarantine, ...news.models];
  const lead = happened.length > 0 ? `${happened.join('; ')}; ` : '';
  if (r.dirtyConfig.length > 0) return `llmgw: ${lead}uncommitted edits to ${r.dirtyConfig.join(', ')}, nothing applied${where}`;
  if (r.blocked !== null) return `llmgw: ${lead}plan blocked, nothing applied${where}`;
  const body = news.actions.length > 0 ? `\n\n${news.actions.join('\n')}` : '';
  if (news.applied.length > 0) return `llmgw: ${lead}${news.applied.join(', ')}${where}${body}`;
  if (happened.length > 0) return `llmgw: ${happened.join('; ')}${where}${body}`;
  if (news.settled.length > 0) return `llmgw: ${news.settled.join(', ')}${where}${body}`;
  const states = counts ? (['running', 'starting', 'failed'] as const).filter((k) => counts[k] > 0).map((k) => `${counts[k]} ${k}`) : [];
  return `llmgw: status${counts ? `: ${states.length > 0 ? states.join(', ') : 'no replicas'}` : ''}${where}${body}`;
}

/**
 * A node's report names replica ids and errors, and a hostile node can put
 * control characters in them: every line of the message is made printable
 * (docs/security.md), and a line is cut at 300 characters.
 */
export function commitMessage(...args: Parameters<typeof composeMessage>): string {
  return composeMessage(...args)
    .split('\n')
    .map((line) => clip(escapeTerminal(line), 300))
    .join('\n');
}
