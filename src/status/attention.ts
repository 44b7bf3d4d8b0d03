// "Needs attention" (docs/status.md): one list of items in the status report,
// rendered alike in the terminal, STATUS.md and the console. Each item is a
// headline and the subjects it names (which node, which GPU, which replica),
// so a reader learns where to look, not only how many.
//
// To add a kind of item: write a rule (facts in, item or null out) and put it
// in RULES where its urgency belongs — or, for a source that lives elsewhere
// (Slurm's view of a node), pass its rules to attentionItems. Nothing else
// changes: every renderer draws every item the same way.
//
// One line per model and cause: a model is named under the most specific of
// "cannot be placed", "no running replica" and "fewer than desired", never
// under two of them, and a first start on its way (replicas starting, none
// failed, the model never ran) is no line at all: it is what was asked for. A subject's detail must not move while the
// fleet stands still (no time of day, no counter), since STATUS.md shows it.

import { compressHostlist } from '../text/compress-hostlist.js';
import { plural } from '../text/format.js';
import { REASON_LABEL } from '../text/reason-labels.js';
import type { AttentionItem, AttentionSubject, NodeSince, StatusFacts } from './types.js';
import { gpuGroups } from './where.js';
import { slurmAttention } from './slurm.js';

/** What the report's facts do not hold and some rules need. */
export interface AttentionContext {
  /** Models that have had a running replica (state.json `everRunning`); null when unknown: every model then counts as one that ran, so nothing is hidden. */
  ran: ReadonlySet<string> | null;
}

export const UNKNOWN_CONTEXT: AttentionContext = { ran: null };

export type AttentionRule = (facts: StatusFacts, ctx: AttentionContext) => AttentionItem | AttentionItem[] | null;

/** Longest replica error a subject carries; the console and --json have it whole. */
export const MAX_DETAIL = 120;

function clip(text: string, max = MAX_DETAIL): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function item(kind: string, text: string, subjects: AttentionSubject[] = []): AttentionItem {
  return { kind, text, subjects };
}

function nodeSubjects(nodes: readonly NodeSince[]): AttentionSubject[] {
  return nodes.map((n) => ({ name: n.node, detail: REASON_LABEL[n.reason], node: n.node }));
}

// While it stands, nothing else on this list is being repaired: first.
const blocked: AttentionRule = (f) => (f.blocked === null ? null : item('blocked', `the plan is blocked, nothing is applied: ${f.blocked}`));

// Two copies of one id serve, count and hold GPUs as one replica.
const duplicates: AttentionRule = (f) => {
  const d = f.duplicates;
  if (d.length === 0) return null;
  const text = `${plural(d.length, 'replica id')} also ${d.length === 1 ? 'runs' : 'run'} where ${d.length === 1 ? 'it is' : 'they are'} not placed (duplicate copies, being stopped)`;
  return item(
    'duplicates',
    text,
    d.map((x) => ({ name: x.replica, detail: `on ${compressHostlist(x.nodes)}`, model: x.model })),
  );
};

/** Lines of one kind STATUS.md gives one by one; past this, one more line counts the rest. */
export const MAX_EACH = 20;

function capped(kind: string, lines: string[], rest: (n: number) => string): AttentionItem[] {
  const out = lines.slice(0, MAX_EACH).map((text) => item(kind, text));
  if (lines.length > MAX_EACH) out.push(item(kind, rest(lines.length - MAX_EACH)));
  return out;
}

// A node's word is not a record (docs/safety.md#records-over-reports): what it
// reports that llmgw never started is shown, one line each, for a person to decide.
const unrecorded: AttentionRule = (f) => {
  const u = f.unrecorded ?? [];
  if (u.length === 0) return null;
  return capped(
    'unrecorded',
    u.map((x) => `node ${x.node} reports replica ${x.replica} that llmgw never started; left alone`),
    (n) => `${plural(n, 'more replica')} that llmgw never started, left alone (llmgw status --json: unrecorded)`,
  );
};

// A report with more GPUs than the node is believed to have (docs/placement.md#inventory).
const inventoryBounded: AttentionRule = (f) => {
  const b = f.inventoryBounded ?? [];
  if (b.length === 0) return null;
  const why = (x: { source: string }) => (x.source === 'declared' ? 'as cluster.yaml declares' : 'the most it reported before');
  return capped(
    'inventory-bounded',
    b.map((x) => `node ${x.node} reports ${x.reported} GPUs, more than the ${x.believed} it is believed to have (${why(x)}); placed with ${x.believed}`),
    (n) =>
      `${plural(n, 'more node')} ${n === 1 ? 'reports' : 'report'} more GPUs than ${n === 1 ? 'it is' : 'they are'} believed to have (llmgw status --json: inventoryBounded)`,
  );
};

const lost: AttentionRule = (f) => {
  const n = f.nodes.lost;
  if (n.length === 0) return null;
  return item('nodes-lost', `${plural(n.length, 'node')} lost (${n.length === 1 ? 'its' : 'their'} replicas are placed elsewhere)`, nodeSubjects(n));
};

const unreachable: AttentionRule = (f) => {
  const n = f.nodes.unreachable;
  return n.length === 0 ? null : item('nodes-unreachable', `${plural(n.length, 'node')} unreachable (not yet lost)`, nodeSubjects(n));
};

// Where and why, one subject per GPU: the Xid and when the quarantine ends
// (both fixed while it lasts, so STATUS.md does not move).
// Slurm's word on a node, in Slurm's words (docs/slurm.md): no new replica there, its own keep running.
const slurmNodes: AttentionRule = (f) => slurmAttention(f, MAX_EACH);

const quarantinedGpus: AttentionRule = (f) => {
  const q = f.quarantinedGpus ?? [];
  if (q.length === 0) return null;
  return item(
    'gpus-quarantined',
    `${plural(q.length, 'GPU')} quarantined after a fatal Xid (never placed on; ${q.length === 1 ? 'its replica is' : 'their replicas are'} replaced)`,
    q.map((g) => ({ name: `${g.node}:${g.index}`, detail: `${g.reason}, until ${g.until}`, node: g.node })),
  );
};

// Serving nothing while /health may say 200: replaced once past liveness.replaceAfter.
const stuckReplicas: AttentionRule = (f) => {
  const s = f.stuckReplicas ?? [];
  if (s.length === 0) return null;
  return item(
    'replicas-stuck',
    `${plural(s.length, 'replica')} stalled or ejected by every router (replaced after liveness.replaceAfter)`,
    s.map((x) => ({ name: x.replica, detail: `${x.kind === 'stalled' ? 'stalled' : 'ejected by every router'} since ${x.since}`, model: x.model })),
  );
};

const unhealthyGpus: AttentionRule = (f) => {
  // A quarantined GPU has its own item, which says why.
  const quarantined = new Set((f.quarantinedGpus ?? []).map((g) => `${g.node}:${g.index}`));
  const gpus = f.unhealthyGpus.filter((g) => !quarantined.has(`${g.node}:${g.index}`));
  if (gpus.length === 0) return null;
  // One entry per set of nodes with the same broken indices; a single node links to its page.
  const subjects = gpuGroups(gpus).map((g) => (g.nodes.length === 1 ? { name: g.name, detail: null, node: g.nodes[0] } : { name: g.name, detail: null }));
  return item('gpus-unhealthy', `${plural(gpus.length, 'GPU')} unhealthy`, subjects);
};

const unplaceable: AttentionRule = (f) => {
  const u = f.unplaceable;
  if (u.length === 0) return null;
  return item(
    'unplaceable',
    `${plural(u.length, 'model')} cannot be placed`,
    u.map((x) => ({ name: x.model, detail: `${x.missing} missing`, model: x.model })),
  );
};

const failed: AttentionRule = (f) => {
  const bad = f.replicas.filter((r) => r.state === 'failed');
  if (bad.length === 0) return null;
  const subjects = bad.map((r) => {
    const where = compressHostlist(r.nodes);
    return { name: r.id, detail: r.error === null ? `on ${where}` : `on ${where}: ${clip(r.error)}`, model: r.model };
  });
  return item('replicas-failed', `${plural(bad.length, 'replica')} failed`, subjects);
};

// Running, but answering wrongly (docs/protocol.md#the-answer-check): out of every table
// until a re-check passes. The detail is the check's own line, like a failed
// replica's error: it names what came back, not when.
const checksFailing: AttentionRule = (f) => {
  const bad = f.replicas.filter((r) => r.check !== undefined && !r.check.ok);
  if (bad.length === 0) return null;
  const subjects = bad.map((r) => ({ name: r.id, detail: `on ${compressHostlist(r.nodes)}: ${clip(r.check?.error ?? '')}`, model: r.model }));
  return item('checks-failing', `${plural(bad.length, 'replica')} failing ${bad.length === 1 ? 'its' : 'their'} answer check (not routed)`, subjects);
};

function runningOf(m: StatusFacts['models'][number]): string {
  return `${m.running} of ${m.desired} running${m.starting > 0 ? `, ${m.starting} starting` : ''}`;
}

/** Its first start is under way: it never ran, its replicas are starting and none failed. Not down, and not news. */
function firstStartOnItsWay(m: StatusFacts['models'][number], ctx: AttentionContext): boolean {
  return ctx.ran !== null && !ctx.ran.has(m.name) && m.starting > 0 && m.failed === 0;
}

/** Models with no running replica, as the "no running replica" line names them: not those that cannot be placed (said above). */
function downModels(f: StatusFacts, ctx: AttentionContext): StatusFacts['models'] {
  const unplaceable = new Set(f.unplaceable.map((u) => u.model));
  // A model waking from asleep is starting on demand, not down.
  return f.models.filter((m) => m.desired > 0 && m.running === 0 && m.scale?.state !== 'waking' && !unplaceable.has(m.name) && !firstStartOnItsWay(m, ctx));
}

const down: AttentionRule = (f, ctx) => {
  const d = downModels(f, ctx);
  return d.length === 0
    ? null
    : item(
        'models-down',
        `${plural(d.length, 'model')} with no running replica`,
        d.map((m) => ({ name: m.name, detail: runningOf(m), model: m.name })),
      );
};

const short: AttentionRule = (f, ctx) => {
  // Named once, under its most specific cause: cannot be placed, or no running replica.
  const named = new Set([...f.unplaceable.map((u) => u.model), ...downModels(f, ctx).map((m) => m.name)]);
  const s = f.models.filter((m) => m.running + m.starting < m.desired && !named.has(m.name));
  return s.length === 0
    ? null
    : item(
        'models-short',
        `${plural(s.length, 'model')} with fewer replicas than desired`,
        s.map((m) => ({ name: m.name, detail: runningOf(m), model: m.name })),
      );
};

// The old spec keeps serving; the spec is not tried again until models.yaml changes it.
// The models section says why (`llmgw status`, STATUS.md: "rollout failed for spec …").
const rolloutFailed: AttentionRule = (f) => {
  const failed = f.models.filter((m) => m.rollout?.stage === 'failed');
  if (failed.length === 0) return null;
  return item(
    'rollout-failed',
    `rollout failed for ${plural(failed.length, 'model')}`,
    failed.map((m) => ({ name: m.name, detail: null, model: m.name })),
  );
};

// Someone else's processes, no llmgw replica: neither free nor llmgw's. Named
// like unhealthy GPUs (`node:index`, nodes with the same indices grouped).
const otherGpus: AttentionRule = (f) => {
  const gpus = (f.nodes.other ?? []).flatMap((o) => o.gpus.map((index) => ({ node: o.node, index })));
  if (gpus.length === 0) return null;
  const subjects = gpuGroups(gpus).map((g) => (g.nodes.length === 1 ? { name: g.name, detail: null, node: g.nodes[0] } : { name: g.name, detail: null }));
  return item('gpus-other', `${plural(gpus.length, 'GPU')} in use by someone else (placement leaves ${gpus.length === 1 ? 'it' : 'them'} alone)`, subjects);
};

// The subjects are replica ids (a node's text: every renderer escapes subjects); the
// endpoint itself is never quoted here (status --json lists it, cut to 200 characters).
const endpoints: AttentionRule = (f) => {
  const w = f.endpointWarnings;
  if (w.length === 0) return null;
  const text = `${plural(w.length, 'replica')} reported by ${w.length === 1 ? 'its node' : 'their nodes'} at an endpoint other than cluster.yaml's host and port, which the routers use (llmgw status --json: endpointWarnings)`;
  return item(
    'endpoints-differ',
    text,
    w.map((x) => ({ name: x.replica, detail: `on ${x.node}`, node: x.node })),
  );
};

// A models.yaml `survive:` the fleet breaks (docs/placement.md#survive): the
// warning heads STATUS.md and the plan, and the list must not say nothing needs
// attention under it. One subject per broken model and domain.
const SURVIVE_WARNING = /^model '([^']+)' (.*) \(models\.yaml survive: [a-z]+\)$/;
const surviveBroken: AttentionRule = (f) => {
  const w = f.surviveWarnings ?? [];
  if (w.length === 0) return null;
  const subjects = w.map((text): AttentionSubject => {
    const m = SURVIVE_WARNING.exec(text);
    return m?.[1] !== undefined && m[2] !== undefined ? { name: m[1], detail: clip(m[2]), model: m[1] } : { name: clip(text), detail: null };
  });
  const models = new Set(subjects.map((s) => s.name)).size;
  return item(
    'survive-broken',
    `${plural(models, 'model')} would not survive the loss models.yaml says ${models === 1 ? 'it' : 'they'} must (survive:)`,
    subjects,
  );
};

/** Most urgent first. */
export const RULES: readonly AttentionRule[] = [
  blocked,
  duplicates,
  unrecorded,
  inventoryBounded,
  lost,
  unreachable,
  slurmNodes,
  quarantinedGpus,
  unhealthyGpus,
  unplaceable,
  failed,
  stuckReplicas,
  checksFailing,
  down,
  short,
  surviveBroken,
  rolloutFailed,
  otherGpus,
  endpoints,
];

/** The list: RULES, then `extra` sources' rules (each adds its lines after the fleet's own). */
export function attentionItems(facts: StatusFacts, ctx: AttentionContext = UNKNOWN_CONTEXT, extra: readonly AttentionRule[] = []): AttentionItem[] {
  return [...RULES, ...extra].flatMap((rule) => rule(facts, ctx) ?? []);
}

/** A model's row needs attention (shown first, never folded away) when fewer run than desired or one failed. */
export function modelNeedsAttention(m: StatusFacts['models'][number]): boolean {
  return m.running < m.desired || m.failed > 0;
}
