// The files llmgw itself keeps in the config repo (docs/config.md), and how they
// are read and written. A missing state is an empty state; a broken one is a
// DataError naming the file, never a crash.

import { DataError } from '../errors.js';
import { readTextIfExists, stableJson } from '../util/fs.js';
import { nonFinitePath } from '../util/json-finite.js';
import { formatSchemaIssues, getValidator } from '../util/schema.js';
import { OBSERVED_FILE, STATE_FILE, STATUS_FILE } from './paths.js';
import { emptyState, type PlacementRecord, type State } from '../types/state.js';
import { lifecycleJson, parseLifecycle } from './lifecycle-file.js';
import type { Snapshot } from '../types/snapshot.js';

// Defined beside the rule that they are regular files (generated-paths.ts), which this reads with.
export { GENERATED_DIR, OBSERVED_FILE, STATE_FILE, STATUS_FILE } from './paths.js';
/** The generated files, committed together (docs/config.md). */
export const GENERATED_FILES = [STATUS_FILE, OBSERVED_FILE, STATE_FILE] as const;
export const CONFIG_FILES = ['cluster.yaml', 'models.yaml'] as const;

function parseJson(text: string, file: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new DataError(`${file}: not valid JSON (${(err as Error).message})`, { cause: err });
  }
}

/**
 * state.json as every command reads it: a broken one is one warning and an
 * empty state — never a crash, never a refusal to look at the fleet. An empty
 * state forgets placements and unreachable times; the snapshot still carries
 * them (src/gather/gather.ts), which is why both files are never trusted to
 * be lost together.
 */
export function stateOrFresh(text: string | null, file: string, warn: (m: string) => void): State {
  if (text === null) return emptyState();
  try {
    return parseState(text, file);
  } catch (err) {
    if (!(err instanceof DataError)) throw err;
    warn(`${err.message}; starting from an empty state`);
    return emptyState();
  }
}

/**
 * A state file's text (from disk, or `git show REF:.llmgw/state.json`); `file` names it in errors.
 * Checked against schemas/state.schema.json and for non-finite numbers
 * (`1e999` parses as Infinity and passes a schema's "number"): whatever the
 * rest of llmgw reads from it has the type it expects.
 */
export function parseState(text: string, file: string): State {
  const raw = parseJson(text, file) as Partial<State> | null;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw) || raw.version !== 1) {
    throw new DataError(`${file}: not an llmgw state file (expected an object with "version": 1)`);
  }
  checkShape(raw, 'state', file, 'state file');
  const empty = emptyState();
  return {
    version: 1,
    unreachableSince: raw.unreachableSince ?? empty.unreachableSince,
    ...(raw.outageEnded && Object.keys(raw.outageEnded).length > 0 ? { outageEnded: raw.outageEnded } : {}),
    startFailures: raw.startFailures ?? empty.startFailures,
    ...(raw.quarantine && Object.keys(raw.quarantine).length > 0 ? { quarantine: raw.quarantine } : {}),
    notified: raw.notified ?? empty.notified,
    everRunning: raw.everRunning ?? empty.everRunning,
    // Absent in an older state file: the tick seeds them once from the committed snapshot (src/fleet/records.ts).
    ...(raw.placements === undefined ? {} : { placements: raw.placements }),
    ...(raw.inventory && Object.keys(raw.inventory).length > 0 ? { inventory: raw.inventory } : {}),
    outbox: raw.outbox ?? empty.outbox,
    ...lifecycleOf(raw.lifecycle),
    ...(typeof raw.leaseEpoch === 'number' && raw.leaseEpoch > 0 ? { leaseEpoch: raw.leaseEpoch } : {}),
    ...(raw.scaling && Object.keys(raw.scaling).length > 0 ? { scaling: raw.scaling } : {}),
  };
}

function lifecycleOf(raw: unknown): Pick<State, 'lifecycle'> {
  const lifecycle = parseLifecycle(raw);
  return lifecycle ? { lifecycle } : {};
}

/** The schema, then finiteness: one DataError naming the file and the first problem. */
function checkShape(raw: unknown, schema: 'state' | 'snapshot', file: string, what: string): void {
  const checked = getValidator(schema)(raw);
  if (!checked.ok) throw new DataError(`${file}: not a valid ${what} (${formatSchemaIssues(checked.errors, 1)})`);
  const bad = nonFinitePath(raw);
  if (bad !== null) throw new DataError(`${file}: not a valid ${what} (${bad}: a number out of range (not finite))`);
}

/** State as committed: sorted keys and rows, so an unchanged state is unchanged bytes. */
export function serializeState(state: State): string {
  const sortRecord = <T>(r: Record<string, T>) => Object.fromEntries(Object.entries(r).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const failures = [...state.startFailures].sort((a, b) => a.at.localeCompare(b.at) || a.model.localeCompare(b.model) || a.node.localeCompare(b.node));
  return stableJson({
    version: 1,
    unreachableSince: sortRecord(state.unreachableSince),
    ...(state.outageEnded && Object.keys(state.outageEnded).length > 0 ? { outageEnded: sortRecord(state.outageEnded) } : {}),
    startFailures: failures,
    ...(state.quarantine && Object.keys(state.quarantine).length > 0
      ? { quarantine: Object.fromEntries(Object.entries(state.quarantine).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) }
      : {}),
    notified: sortRecord(state.notified),
    everRunning: [...new Set(state.everRunning)].sort(),
    placements: Object.fromEntries(
      Object.entries(state.placements ?? {})
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([id, rec]) => [id, placementRecord(rec)]),
    ),
    ...(state.inventory && Object.keys(state.inventory).length > 0 ? { inventory: sortRecord(state.inventory) } : {}),
    // Oldest first: the order they are sent in.
    outbox: state.outbox.map((o) => ({ id: o.id, hooks: [...o.hooks].sort(), event: o.event, ...(o.mac === undefined ? {} : { mac: o.mac }) })),
    ...(state.lifecycle ? { lifecycle: lifecycleJson(state.lifecycle) } : {}),
    ...(state.leaseEpoch !== undefined && state.leaseEpoch > 0 ? { leaseEpoch: state.leaseEpoch } : {}),
    ...(state.scaling && Object.keys(state.scaling).length > 0 ? { scaling: state.scaling } : {}),
  });
}

/** One record, its keys in one order whatever built it. */
function placementRecord(p: PlacementRecord): PlacementRecord {
  const ranks = [...p.ranks].sort((a, b) => a.rank - b.rank || (a.node < b.node ? -1 : a.node > b.node ? 1 : 0));
  return {
    model: p.model,
    state: p.state,
    ranks: ranks.map((r) => ({ node: r.node, rank: r.rank, gpus: [...r.gpus].sort((a, b) => a - b) })),
    ...(p.port === undefined ? {} : { port: p.port }),
    ...(p.spec === undefined ? {} : { spec: p.spec }),
  };
}

/**
 * A snapshot file (`--observed FILE` or `.llmgw/observed.json`), checked
 * against schemas/snapshot.schema.json and for non-finite numbers.
 */
export async function readSnapshotFile(file: string): Promise<Snapshot> {
  const text = await readTextIfExists(file);
  if (text === null) throw new DataError(`${file}: no such file`);
  return parseSnapshot(text, file);
}

/** A snapshot's text (from disk, or `git show REF:.llmgw/observed.json`); `file` names it in errors. */
export function parseSnapshot(text: string, file: string): Snapshot {
  const raw = parseJson(text, file) as Partial<Snapshot> | null;
  if (raw === null || typeof raw !== 'object' || raw.version !== 1 || !Array.isArray(raw.nodes)) {
    throw new DataError(`${file}: not an llmgw snapshot (expected "version": 1 and "nodes")`);
  }
  // A hand-written snapshot may leave out when an unreachable node went away
  // and what it last said: both read as unknown.
  // Typed wide: a hand-written file may hold anything in the list, null included.
  // checkShape below rejects whatever else the list held.
  const nodes = raw.nodes.map((n: Snapshot['nodes'][number] | null) =>
    n !== null && typeof n === 'object' && !n.reachable ? { ...n, unreachableSince: n.unreachableSince ?? null, lastReport: n.lastReport ?? null } : n,
  ) as Snapshot['nodes'];
  const snapshot = { version: 1 as const, observedAt: raw.observedAt ?? '', nodes, routers: raw.routers ?? [] };
  checkShape(snapshot, 'snapshot', file, 'snapshot');
  return snapshot;
}
