// Which notifications a tick owes (docs/notifications.md), derived purely from what the
// tick saw and the conditions already notified. Each event fires once per
// transition: an open condition is remembered in State.notified under
// `<event>/<subject>` and committed with state.json, so neither the next tick nor
// a restarted reconciler sends it again; the matching recovery closes it.

import { formatProblem } from '../errors.js';
import type { ConfigProblem, EventName } from '../types/config.js';
import type { Fleet, FleetNode } from '../types/fleet.js';
import type { Plan } from '../types/plan.js';
import type { NotifyEvent, State } from '../types/state.js';
import { escapeTerminal } from '../text/terminal-text.js';
import { rolloutEvents } from './rollout-events.js';
import { stuckOf } from '../fleet/liveness.js';

// The event's shape lives with the state that queues it (types/state.ts), so types/ imports nothing of notify/.
export type { NotifyEvent } from '../types/state.js';

export interface ApplyFailure {
  /** The replica, or for a router that did not take its endpoint table, the router. */
  replica: string;
  node: string;
  error: string;
  /** A router's table, not a replica: its stops wait until the router takes one (docs/safety.md). */
  router?: true;
}

export interface DetectInput {
  cluster: string;
  /** null when the tick could not look at the fleet (invalid config): node and model conditions stay as they were. */
  fleet: Fleet | null;
  /** null when nothing was planned: unplaceable conditions stay as they were. */
  plan: Plan | null;
  applyFailures: ApplyFailure[];
  /** null when the config is valid. */
  configErrors: ConfigProblem[] | null;
  now: string;
  /** The tick's scaling decisions (src/plan/scale.ts): one `model.scaled` each. Absent: none. */
  scaled?: readonly ScaledModel[];
}

/** One scaling decision, as `model.scaled` reports it. */
export interface ScaledModel {
  model: string;
  from: number;
  to: number;
  reason: string;
}

const key = (event: EventName, subject: string) => `${event}/${subject}`;

// In Slack's text `<…>` is a link or a mention (`<!channel>`): text from a node or
// a config file must not become one. `>` alone is harmless and keeps `>= 1` readable.
function esc(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;');
}

/** Strings as they go out in a webhook body: a node's text (an error, a replica id) carries no control character (docs/security.md). */
function printableValue(value: unknown): unknown {
  if (typeof value === 'string') return escapeTerminal(value);
  if (Array.isArray(value)) return value.map(printableValue);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [escapeTerminal(k), printableValue(v)]));
  return value;
}

function printable(e: NotifyEvent): NotifyEvent {
  return { ...e, subject: escapeTerminal(e.subject), text: escapeTerminal(e.text), details: printableValue(e.details) as Record<string, unknown> };
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

export function detectEvents(prev: State, input: DetectInput): { events: NotifyEvent[]; state: State } {
  const notified: Record<string, string> = { ...prev.notified };
  let everRunning = [...prev.everRunning];
  const events: NotifyEvent[] = [];
  const { cluster, now } = input;

  /** Fire `event` for `subject` unless that condition is already open. */
  function open(event: EventName, subject: string, text: string, details: Record<string, unknown>): void {
    const k = key(event, subject);
    if (notified[k] !== undefined) return;
    notified[k] = now;
    events.push({ event, cluster, time: now, subject, text: `[${esc(cluster)}] ${text}`, details });
  }
  /** Close an open condition; when it was open, `recovered` says so. */
  function close(event: EventName, subject: string, recovered?: () => NotifyEvent): void {
    const k = key(event, subject);
    if (notified[k] === undefined) return;
    // notified is the plain record State keeps (JSON on disk); a closed condition leaves it.
    // eslint-disable-next-line @typescript-eslint/no-dynamic-delete -- a keyed record by design, not an object with fixed fields
    delete notified[k];
    if (recovered) events.push(recovered());
  }
  const openSubjects = (event: EventName) =>
    Object.keys(notified)
      .filter((k) => k.startsWith(`${event}/`))
      .map((k) => k.slice(event.length + 1));

  // config.invalid
  const firstError = input.configErrors?.[0];
  if (input.configErrors && firstError !== undefined) {
    const errs = input.configErrors;
    open(
      'config.invalid',
      cluster,
      `The config is invalid (${plural(errs.length, 'error')}); nothing is applied until it is fixed. First: ${esc(formatProblem(firstError))}`,
      { errors: errs.map(formatProblem) },
    );
  } else if (input.configErrors === null) {
    close('config.invalid', cluster);
  }

  // model.scaled: a decision, not a condition — one event per decision, nothing to close.
  for (const d of input.scaled ?? []) {
    const text = `Model ${esc(d.model)} scaled ${d.from}→${d.to}: ${esc(d.reason)}.`;
    events.push({
      event: 'model.scaled',
      cluster,
      time: now,
      subject: d.model,
      text: `[${esc(cluster)}] ${text}`,
      details: { model: d.model, from: d.from, to: d.to, reason: d.reason },
    });
  }

  if (input.fleet) {
    nodeEvents(input.fleet, open, close, openSubjects, cluster, now);
    everRunning = modelEvents(input.fleet, everRunning, open, close, openSubjects, cluster, now);
    // gpu.quarantined: once per quarantine; its end (expiry, release) closes it without an event of its own.
    const quarantine = input.fleet.quarantine ?? {};
    for (const [gpu, q] of Object.entries(quarantine).sort(([a], [b]) => a.localeCompare(b))) {
      open('gpu.quarantined', gpu, `GPU ${esc(gpu)} is quarantined until ${q.until}: ${esc(q.reason)}; its replica is replaced`, {
        node: q.node,
        index: q.index,
        code: q.code,
        reason: q.reason,
        since: q.since,
        until: q.until,
      });
    }
    // replica.stalled: once per transition into stalled or ejected; serving again, or gone, closes it.
    const stuck = new Set<string>();
    for (const r of input.fleet.replicas) {
      const s = stuckOf(r);
      if (s === null) continue;
      stuck.add(r.id);
      const how = s.kind === 'stalled' ? 'is stalled (no progress with requests running)' : 'is ejected by every router';
      open('replica.stalled', r.id, `Replica ${esc(r.id)} of ${esc(r.model)} ${how} since ${s.since}; it is replaced past liveness.replaceAfter`, {
        replica: r.id,
        model: r.model,
        nodes: r.nodes,
        ...(s.kind === 'stalled' ? { stalledSince: s.since } : { ejectedSince: s.since }),
      });
    }
    for (const id of openSubjects('replica.stalled')) if (!stuck.has(id)) close('replica.stalled', id);
    for (const gpu of openSubjects('gpu.quarantined')) if (!Object.hasOwn(quarantine, gpu)) close('gpu.quarantined', gpu);
  }

  // model.unplaceable: no recovery event of its own; placing it again just closes it.
  if (input.plan) {
    const unplaceable = new Set(input.plan.unplaceable.map((u) => u.model));
    for (const u of input.plan.unplaceable) {
      open('model.unplaceable', u.model, `Model ${esc(u.model)} cannot be placed (${plural(u.missing, 'replica')} missing): ${esc(u.reason)}`, {
        model: u.model,
        missing: u.missing,
        reason: u.reason,
      });
    }
    for (const m of openSubjects('model.unplaceable')) if (!unplaceable.has(m)) close('model.unplaceable', m);
  }

  // plan.blocked: the plan a safety rule refuses (docs/safety.md). Nothing is
  // applied while it stands, so somebody must hear of it once; an unblocked
  // plan closes it, and a later block is a new transition.
  if (input.plan?.blocked) {
    open('plan.blocked', cluster, `The plan is blocked, nothing is applied: ${esc(input.plan.blocked)}.`, {
      blocked: input.plan.blocked,
      actions: input.plan.actions.length,
    });
  } else if (input.plan) {
    close('plan.blocked', cluster);
  }

  if (input.plan) rolloutEvents(input.plan, open, close, openSubjects, esc);

  // apply.failed: one event per replica; a tick where it did not fail closes it.
  const byReplica = new Map<string, ApplyFailure[]>();
  for (const f of input.applyFailures) byReplica.set(f.replica, [...(byReplica.get(f.replica) ?? []), f]);
  for (const [replica, fails] of [...byReplica].sort(([a], [b]) => a.localeCompare(b))) {
    const where = fails.map((f) => `${esc(f.node)}: ${esc(f.error)}`).join('; ');
    const head = fails[0];
    if (head?.router) {
      open('apply.failed', replica, `Router ${esc(replica)} did not take its endpoint table (${esc(head.error)}); replicas it may still list are not stopped`, {
        router: replica,
        error: head.error,
      });
      continue;
    }
    open('apply.failed', replica, `Applying ${esc(replica)} failed on ${where}`, {
      replica,
      failures: fails.map((f) => ({ node: f.node, error: f.error })),
    });
  }
  if (input.fleet) for (const r of openSubjects('apply.failed')) if (!byReplica.has(r)) close('apply.failed', r);

  return { events: events.map(printable), state: { ...prev, notified, everRunning: [...new Set(everRunning)].sort() } };
}

type Open = (event: EventName, subject: string, text: string, details: Record<string, unknown>) => void;
type Close = (event: EventName, subject: string, recovered?: () => NotifyEvent) => void;
type OpenSubjects = (event: EventName) => string[];

function nodeEvents(fleet: Fleet, open: Open, close: Close, openSubjects: OpenSubjects, cluster: string, now: string): void {
  for (const node of fleet.nodes) {
    if (node.condition === 'lost') {
      open('node.lost', node.name, lostText(node), {
        node: node.name,
        fabric: node.fabric,
        unreachableSince: node.unreachableSince,
        error: node.error,
        replicas: node.replicas,
      });
    } else if (node.condition === 'reachable') {
      close('node.lost', node.name, () => ({
        event: 'node.recovered',
        cluster,
        time: now,
        subject: node.name,
        text: `[${esc(cluster)}] Node ${esc(node.name)} is reachable again.`,
        details: { node: node.name, fabric: node.fabric },
      }));
    }
  }
  // A node taken out of cluster.yaml is not lost any more, nor recovered: forget it.
  for (const name of openSubjects('node.lost')) if (!fleet.nodeByName.has(name)) close('node.lost', name);
}

function lostText(node: FleetNode): string {
  const since = node.unreachableSince ? `since ${node.unreachableSince}` : 'since an unknown time';
  const why = node.error ? ` (${esc(node.error)})` : '';
  const moved = node.replicas.length > 0 ? `; its ${plural(node.replicas.length, 'replica')} will be placed elsewhere` : '';
  return `Node ${esc(node.name)} is lost: unreachable ${since}${why}${moved}.`;
}

function modelEvents(fleet: Fleet, everRunning: string[], open: Open, close: Close, openSubjects: OpenSubjects, cluster: string, now: string): string[] {
  const ran = new Set(everRunning);
  const wanted = new Set<string>();
  for (const model of fleet.config.models) {
    if (model.replicas <= 0) continue;
    wanted.add(model.name);
    const replicas = fleet.replicas.filter((r) => r.model === model.name && !r.lost);
    // A replica whose stop began, or whose answer check fails, serves no new request: not running here.
    const running = replicas.filter((r) => r.state === 'running' && !r.draining && r.check?.ok !== false).length;
    if (running > 0) {
      ran.add(model.name);
      close('model.down', model.name, () => ({
        event: 'model.recovered',
        cluster,
        time: now,
        subject: model.name,
        text: `[${esc(cluster)}] Model ${esc(model.name)} is serving again: ${running} of ${model.replicas} replicas running.`,
        details: { model: model.name, desired: model.replicas, running },
      }));
    } else if (ran.has(model.name)) {
      // A model that never ran is starting, not down.
      open('model.down', model.name, `Model ${esc(model.name)} is down: none of its ${plural(model.replicas, 'replica')} is running.`, {
        model: model.name,
        desired: model.replicas,
        running: 0,
        starting: replicas.filter((r) => r.state === 'starting').length,
        failed: replicas.filter((r) => r.state === 'failed').length,
      });
    }
  }
  // Removed or scaled to zero on purpose: not down, and a later return is a new start.
  for (const m of openSubjects('model.down')) if (!wanted.has(m)) close('model.down', m);
  return [...ran].filter((m) => wanted.has(m));
}
