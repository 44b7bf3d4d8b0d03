// The node condition `slurm` in the fleet model and the plan (docs/slurm.md#the-node-condition-slurm):
// a node Slurm drains, takes down or reserves (or that is outside
// slurm.partition) is not placeable, its free GPUs count `cordoned`, its
// replicas keep running; GPUs other Slurm jobs hold are `other`; Slurm
// unreachable past lostAfter (judged at the fleet's now) leaves every node
// `unknown` and nothing new placed; without cluster.yaml `slurm:` a view
// changes nothing. Status JSON lists the nodes under `nodes.slurm` and the
// attention list gives Slurm's state and reason per node.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildFleet } from '../../src/fleet/build-fleet.js';
import { capacityByClass } from '../../src/fleet/counts.js';
import { planFleet } from '../../src/plan/plan-fleet.js';
import { summarize } from '../../src/status/summarize.js';
import { renderStatusMarkdown } from '../../src/views/status/render-markdown.js';
import type { Config, SlurmConfig } from '../../src/types/config.js';
import type { SlurmNodeView, SlurmView } from '../../src/types/snapshot.js';
import { emptyState } from '../../src/types/state.js';
import { NOW, NOW_MS, config, gpus, model, nodeConfig, replica, report, snapshot, up, vllmEngine } from '../fixtures/index.js';

const SLURM: SlurmConfig = { host: 'slurm-ctl', port: 22, mode: 'observe', yield: false, names: {}, partition: 'gpu' };

function cfg(slurm: SlurmConfig | undefined, models = [model('m', { gpus: 4, replicas: 1 })]): Config {
  const c = config(
    ['a1', 'a2'].map((n) => nodeConfig(n)),
    { engines: { vllm: vllmEngine() } },
    models,
  );
  return slurm === undefined ? c : { ...c, cluster: { ...c.cluster, slurm } };
}

const idle = (over: Partial<SlurmNodeView> = {}): SlurmNodeView => ({ state: 'idle', reason: '', gpusAllocated: 0, partitions: ['gpu'], ...over });

function view(nodes: Record<string, SlurmNodeView>, over: Partial<SlurmView> = {}): SlurmView {
  return { reachable: true, nodes, jobs: [], pending: 0, partition: 'gpu', ...over };
}

function fleetWith(c: Config, v: SlurmView | undefined, a1Replicas = [replica('m-0', [0, 1, 2, 3])], now = NOW) {
  const snap = { ...snapshot([up('a1', report(gpus(8), a1Replicas)), up('a2', report(gpus(8)))]), ...(v === undefined ? {} : { slurm: v }) };
  return buildFleet(c, snap, emptyState(), now);
}

test('a drained node: not placeable, its free GPUs cordoned, its replica kept running; the plan places elsewhere', () => {
  const f = fleetWith(cfg(SLURM, [model('m', { gpus: 4, replicas: 2 })]), view({ a1: idle({ state: 'idle+drain', reason: 'bad fan' }), a2: idle() }));
  const a1 = f.nodeByName.get('a1')!;
  assert.equal(a1.slurm?.condition, { state: 'idle+drain', reason: 'bad fan' });
  assert.is(a1.condition, 'reachable', 'Slurm`s word is not an outage: the node still answers');
  assert.equal(
    a1.gpus.map((g) => g.bucket),
    ['used', 'used', 'used', 'used', 'cordoned', 'cordoned', 'cordoned', 'cordoned'],
  );
  assert.is(a1.freeWholeClass, null);
  const plan = planFleet(f, emptyState());
  assert.equal(
    plan.actions.map((a) => `${a.op} ${a.replica} ${a.placement.map((p) => p.node).join('+')}`),
    ['start m-1 a2'],
    'no stop of m-0: its replica keeps running; the missing one lands on a2, not on a1`s four free GPUs',
  );
});

test('a reservation active now that is not slurm.reservation: not placeable, reason names it; one that starts later or is llmgw`s own: placeable', () => {
  const res = (name: string, start: string, end: string) => ({ name, start, end, active: true, flags: [] as string[] });
  const active = view({ a1: idle(), a2: idle({ state: 'idle+reserved', reservations: [res('batch-week', '2026-11-29T07:00:00Z', '2026-11-29T09:00:00Z')] }) });
  assert.equal(fleetWith(cfg(SLURM), active).nodeByName.get('a2')!.slurm?.condition, { state: 'idle+reserved', reason: 'reservation batch-week' });
  const later = view({ a1: idle(), a2: idle({ reservations: [res('batch-week', '2026-11-29T10:00:00Z', '2026-11-29T12:00:00Z')] }) });
  assert.is(fleetWith(cfg(SLURM), later).nodeByName.get('a2')!.slurm?.condition, undefined);
  // The same later view judged at 11:00 (the fleet's now, not the clock): reserved.
  assert.equal(fleetWith(cfg(SLURM), later, undefined, '2026-11-29T11:00:00Z').nodeByName.get('a2')!.slurm?.condition?.reason, 'reservation batch-week');
});

test('slurm.partition set: a node outside it, and one Slurm does not list, are not placeable', () => {
  const f = fleetWith(cfg(SLURM), view({ a1: idle({ partitions: ['debug'] }) }));
  assert.equal(f.nodeByName.get('a1')!.slurm?.condition, { state: 'idle', reason: 'not in partition gpu' });
  assert.equal(f.nodeByName.get('a2')!.slurm?.condition, { state: 'unknown', reason: 'Slurm does not list this node in partition gpu' });
  assert.equal(planFleet(f, emptyState()).unplaceable.length, 0, 'm-0 stays where it is');
  assert.is(planFleet(f, emptyState()).actions.length, 0);
});

test('a batch job holding GPUs 0-3 of an 8-GPU node: those four are `other`, exactly four are placeable there', () => {
  const c = cfg(SLURM, [model('four', { gpus: 4, replicas: 1 }), model('five', { gpus: 5, replicas: 1, index: 1 })]);
  const f = fleetWith(
    c,
    view({ a1: idle({ state: 'mixed', gpusAllocated: 4, gpuIndicesAllocated: [0, 1, 2, 3] }), a2: idle({ state: 'idle+drain', reason: 'r' }) }),
    [],
  );
  const a1 = f.nodeByName.get('a1')!;
  assert.equal(
    a1.gpus.map((g) => g.bucket),
    ['other', 'other', 'other', 'other', 'free', 'free', 'free', 'free'],
  );
  assert.equal(capacityByClass(f)[0], { class: 'H100', total: 16, used: 0, free: 4, unhealthy: 0, other: 4, unreachable: 0, cordoned: 8 });
  const plan = planFleet(f, emptyState());
  assert.equal(
    plan.actions.map((a) => [a.replica, a.placement]),
    [['four-0', [{ node: 'a1', gpus: [4, 5, 6, 7] }]]],
  );
  assert.equal(
    plan.unplaceable.map((u) => u.model),
    ['five'],
  );
});

test('Slurm gives only a count: that many GPUs no replica holds, lowest index first, are `other`', () => {
  const f = fleetWith(cfg(SLURM), view({ a1: idle({ state: 'mixed', gpusAllocated: 2 }), a2: idle() }));
  assert.equal(
    f.nodeByName.get('a1')!.gpus.map((g) => g.bucket),
    ['used', 'used', 'used', 'used', 'other', 'other', 'free', 'free'],
  );
});

test('Slurm unreachable: the held view keeps conditions within lostAfter; past it (at the fleet`s now) every node is unknown and nothing is placed', () => {
  const since = new Date(NOW_MS - 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const held = view(
    { a1: idle({ state: 'idle+drain', reason: 'bad fan' }), a2: idle() },
    { reachable: false, error: 'connection refused', unreachableSince: since },
  );
  const c = cfg(SLURM, [model('m', { gpus: 4, replicas: 2 })]);
  const within = fleetWith(c, held);
  assert.equal(within.nodeByName.get('a1')!.slurm?.condition?.reason, 'bad fan');
  assert.is(within.nodeByName.get('a2')!.slurm?.condition, undefined);
  const later = new Date(NOW_MS + 600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const past = fleetWith(c, held, undefined, later);
  assert.equal(
    past.nodes.map((n) => [n.name, n.slurm?.condition?.state]),
    [
      ['a1', 'unknown'],
      ['a2', 'unknown'],
    ],
  );
  assert.match(past.nodeByName.get('a2')!.slurm!.condition!.reason, `Slurm unreachable since ${since}: connection refused`);
  const plan = planFleet(past, emptyState());
  assert.equal(
    plan.actions.filter((a) => a.op === 'start'),
    [],
  );
  assert.equal(
    plan.unplaceable.map((u) => [u.model, u.missing]),
    [['m', 1]],
  );
});

test('status JSON `nodes.slurm` and the attention line, in Slurm`s words; the reason is untrusted text and is escaped', () => {
  const v = view({ a1: idle({ state: 'idle+drain', reason: 'maintenance <b>|x|</b>' }), a2: idle({ state: 'down+not_responding' }) });
  const f = fleetWith(cfg(SLURM), v);
  const s = summarize(f, []);
  assert.equal(s.nodes.slurm, [
    { node: 'a1', state: 'idle+drain', reason: 'maintenance <b>|x|</b>' },
    { node: 'a2', state: 'down+not_responding', reason: '' },
  ]);
  assert.equal(
    s.attention.filter((a) => a.kind === 'slurm').map((a) => a.text),
    ['a1: Slurm idle+drain — maintenance <b>|x|</b>', 'a2: Slurm down+not_responding'],
  );
  const md = renderStatusMarkdown(s);
  // Markdown's own characters are escaped, so Slurm's text cannot make a table or a tag of STATUS.md.
  assert.ok(md.includes('- a1: Slurm idle\\+drain — maintenance &lt;b>\\|x\\|&lt;/b>\n'), md);
  assert.ok(md.includes('- a2: Slurm down\\+not\\_responding\n'), md);
  assert.not.ok(md.includes('<b>'), 'Slurm`s reason reaches STATUS.md escaped');
});

test('without cluster.yaml `slurm:` a Slurm view in the snapshot changes nothing: no condition, no `other`, no nodes.slurm', () => {
  const v = view({ a1: idle({ state: 'idle+drain', reason: 'bad fan', gpusAllocated: 4, gpuIndicesAllocated: [4, 5, 6, 7] }) });
  const withView = fleetWith(cfg(undefined), v);
  const plain = fleetWith(cfg(undefined), undefined);
  assert.equal(
    withView.nodes.map((n) => [n.name, n.slurm, n.gpus.map((g) => g.bucket)]),
    plain.nodes.map((n) => [n.name, n.slurm, n.gpus.map((g) => g.bucket)]),
  );
  assert.is(withView.slurm, undefined);
  assert.equal(summarize(withView, []), summarize(plain, []));
  assert.is('slurm' in summarize(plain, []).nodes, false);
});

test.run();
