// From the fleet model to the status report (docs/commands.md). Pure; every row list
// sorted, so the same fleet always gives the same bytes.

import { capacityByClass, countedState, fabricHoldings, freeWholeNodes, modelCounts } from '../fleet/index.js';
import { endpointWarnings } from '../fleet/routes.js';
import { fitReport, fitWarnings, fleetFit } from '../fleet/fit-report.js';
import { surviveReport, surviveWarnings } from '../fleet/survive.js';
import type { Fleet, FleetReplica } from '../types/fleet.js';
import type { RolloutPlan, Unplaceable } from '../types/plan.js';
import { attentionItems, UNKNOWN_CONTEXT, type AttentionContext } from './attention.js';
import { withScale } from './scale-rows.js';
import { slurmNodeRows } from './slurm.js';
import type { ScalingRecord } from '../types/state.js';
import type { FabricRow, HoldingRow, IdleRow, ModelRow, NodeSince, OtherGpus, ReplicaRow, StatusFacts, StatusReport } from './types.js';
import { stuckOf } from '../fleet/liveness.js';
import type { StuckReplica } from './types.js';
import { applicationXids, quarantinedGpus, replicaError, unhealthyGpus } from './where.js';

export const NO_WEBHOOK_WARNING =
  'No notify.webhooks in cluster.yaml: a lost node or a model going down notifies nobody. ' +
  'Add a webhook under notify.webhooks, e.g. `- url: ${LLMGW_WEBHOOK_URL}`.';

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function fabricRows(fleet: Fleet): FabricRow[] {
  const whole = freeWholeNodes(fleet);
  const counts = new Map<string, { nodes: number; reachable: number }>();
  for (const f of whole.keys()) counts.set(f, { nodes: 0, reachable: 0 });
  for (const n of fleet.nodes) {
    const c = counts.get(n.fabric);
    if (!c) continue;
    c.nodes += 1;
    if (n.condition === 'reachable') c.reachable += 1;
  }
  return [...whole]
    .sort(([a], [b]) => cmp(a, b))
    .map(([name, byClass]) => {
      const freeWhole = Object.fromEntries([...byClass].sort(([a], [b]) => cmp(a, b)));
      return { name, ...(counts.get(name) ?? { nodes: 0, reachable: 0 }), freeWholeNodes: freeWhole };
    });
}

function holdingRows(fleet: Fleet, fabrics: string[]): HoldingRow[] {
  const models = [...fleet.config.models].sort((a, b) => cmp(a.name, b.name));
  const rows: HoldingRow[] = [];
  for (const fabric of fabrics) {
    for (const m of models) rows.push({ fabric, model: m.name, weights: m.weights, ...fabricHoldings(fleet, fabric, m.weights) });
  }
  return rows;
}

function replicaRow(fleet: Fleet, r: FleetReplica): ReplicaRow {
  const row: ReplicaRow = {
    id: r.id,
    model: r.model,
    nodes: r.nodes,
    state: countedState(r),
    idleSeconds: r.idleSeconds ?? -1,
    idleSince: r.idleSince,
    error: replicaError(fleet, r),
  };
  // `at` is left out: a passing re-check every 30 s must not change the report.
  if (r.state === 'running' && r.check?.ok === false) row.check = { ok: false, error: r.check.error ?? 'no answer matched' };
  const xid = applicationXids(fleet, r);
  if (xid.length > 0) row.xid = xid;
  return row;
}

/** The quarantined GPUs, when there are any: absent otherwise, so a fleet without faults reports as before. */
function quarantinedList(fleet: Fleet): { quarantinedGpus?: ReturnType<typeof quarantinedGpus> } {
  const q = quarantinedGpus(fleet);
  return q.length === 0 ? {} : { quarantinedGpus: q };
}

/** The stalled and ejected replicas, when there are any. */
function stuckList(replicas: readonly FleetReplica[]): { stuckReplicas?: StuckReplica[] } {
  const out: StuckReplica[] = [];
  for (const r of replicas) {
    const stuck = stuckOf(r);
    if (stuck !== null) out.push({ replica: r.id, model: r.model, nodes: r.nodes, kind: stuck.kind, since: stuck.since });
  }
  return out.length === 0 ? {} : { stuckReplicas: out };
}

/** Each model's row, with its rollout when one is under way or failed. */
function modelRows(fleet: Fleet, rollouts: readonly RolloutPlan[]): ModelRow[] {
  const byModel = new Map(rollouts.map((r) => [r.model, r]));
  return modelCounts(fleet).map((m) => {
    const r = byModel.get(m.name);
    return r ? { ...m, rollout: { spec: r.spec, stage: r.stage, text: r.text } } : m;
  });
}

/** GPUs in the `other` bucket, per node in name order. */
function otherGpus(fleet: Fleet): OtherGpus[] {
  const out: OtherGpus[] = [];
  for (const n of fleet.nodes) {
    const gpus = n.gpus.filter((g) => g.bucket === 'other').map((g) => g.index);
    if (gpus.length > 0) out.push({ node: n.name, gpus });
  }
  return out;
}

/** Known unused for at least idle.after; longest unused first. */
function idleRows(fleet: Fleet, replicas: FleetReplica[]): IdleRow[] {
  const afterSeconds = fleet.config.cluster.idleAfterMs / 1000;
  return replicas
    .flatMap(({ id, model, nodes, idleSeconds, idleSince }) =>
      idleSeconds !== null && idleSince !== null && idleSeconds >= afterSeconds ? [{ replica: id, model, nodes, idleSeconds, idleSince }] : [],
    )
    .sort((a, b) => b.idleSeconds - a.idleSeconds || cmp(a.replica, b.replica));
}

function nodeLists(fleet: Fleet): StatusReport['nodes'] {
  const unreachable: NodeSince[] = [];
  const lost: NodeSince[] = [];
  const cordoned: { node: string }[] = [];
  for (const n of fleet.nodes) {
    const down = { node: n.name, since: n.unreachableSince, reason: n.reason ?? 'unknown', error: n.error };
    if (n.condition === 'unreachable') unreachable.push(down);
    if (n.condition === 'lost') lost.push(down);
    if (n.cordoned) cordoned.push({ node: n.name });
  }
  const other = otherGpus(fleet);
  const slurm = slurmNodeRows(fleet);
  return { unreachable, lost, cordoned, ...(other.length > 0 ? { other } : {}), ...(slurm === undefined ? {} : { slurm }) };
}

/** `blocked`: the fleet's own plan's (docs/safety.md), so STATUS.md cannot say nothing needs attention while nothing is applied. */
export function summarize(
  fleet: Fleet,
  unplaceable: Unplaceable[],
  blocked: string | null = null,
  rollouts: readonly RolloutPlan[] = [],
  scaling?: Readonly<Record<string, ScalingRecord>>,
  everRunning?: readonly string[],
): StatusReport {
  // Lost replicas count as gone (docs/placement.md): the planner places them again.
  const present = fleet.replicas.filter((r) => !r.lost);
  const fabrics = fabricRows(fleet);
  const webhooks = fleet.config.cluster.notify.webhooks.length;
  const ff = fleetFit(fleet);
  const survive = surviveReport(fleet);
  const facts: StatusFacts = {
    version: 1,
    cluster: fleet.config.cluster.name,
    observedAt: fleet.observedAt,
    capacity: capacityByClass(fleet),
    fabrics,
    holdings: holdingRows(
      fleet,
      fabrics.map((f) => f.name),
    ),
    models: withScale(fleet, modelRows(fleet, rollouts), scaling),
    replicas: present.map((r) => replicaRow(fleet, r)),
    unplaceable: unplaceable.map((u) => ({ model: u.model, missing: u.missing, reason: u.reason })).sort((a, b) => cmp(a.model, b.model)),
    blocked,
    // A replica whose stop has begun is going anyway: not listed as idle.
    idle: idleRows(
      fleet,
      present.filter((r) => !r.draining),
    ),
    nodes: nodeLists(fleet),
    notify: { webhooks, warning: webhooks === 0 ? NO_WEBHOOK_WARNING : null },
    // Beyond docs/commands.md's keys, so they come after them.
    unhealthyGpus: unhealthyGpus(fleet),
    ...quarantinedList(fleet),
    ...stuckList(present),
    duplicates: (fleet.duplicates ?? []).map((d) => ({ replica: d.replica, model: d.model, nodes: d.nodes, recordNodes: d.recordNodes })),
    ...unrecordedList(fleet),
    ...inventoryList(fleet),
    fit: fitReport(fleet, ff),
    fitWarnings: fitWarnings(fleet, ff),
    survive,
    surviveWarnings: surviveWarnings(fleet, survive),
    endpointWarnings: endpointWarnings(fleet),
  };
  return withAttention(facts, { ran: everRunning === undefined ? null : new Set(everRunning) });
}

/** The copies no record names (docs/safety.md#records-over-reports); no key when there are none. */
function unrecordedList(fleet: Fleet): Pick<StatusFacts, 'unrecorded'> {
  const rows = (fleet.unrecorded ?? []).map((u) => ({
    replica: u.replica,
    model: u.model,
    node: u.node,
    gpus: [...u.gpus],
    state: u.state,
    ...(u.port === undefined ? {} : { port: u.port }),
  }));
  return rows.length === 0 ? {} : { unrecorded: rows };
}

/** The nodes placed with fewer GPUs than they report (docs/placement.md#inventory); no key when there are none. */
function inventoryList(fleet: Fleet): Pick<StatusFacts, 'inventoryBounded'> {
  const rows = fleet.nodes.flatMap((n) => (n.inventory === undefined ? [] : [{ node: n.name, ...n.inventory }]));
  return rows.length === 0 ? {} : { inventoryBounded: rows };
}

/** A report whose facts were changed by hand (tests, a projection): its attention list derived again. */
export function withAttention(facts: StatusFacts, ctx: AttentionContext = UNKNOWN_CONTEXT): StatusReport {
  const { attention: _old, endpointWarnings, ...rest } = facts as StatusReport;
  // The JSON's keys in the order they were added: endpointWarnings came after attention.
  return { ...rest, attention: attentionItems(facts, ctx), endpointWarnings };
}
