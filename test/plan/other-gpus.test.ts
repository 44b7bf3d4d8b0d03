// GPUs someone else uses (docs/placement.md#gpu-buckets): a GPU with foreign compute
// processes and no llmgw replica is `other` — neither free nor llmgw's — and
// placement never takes it; a missing `foreign` reads as none.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildFleet, capacityByClass, freeWholeNodes } from '../../src/fleet/index.js';
import { summarize } from '../../src/status/index.js';
import { renderStatusMarkdown } from '../../src/views/status/index.js';
import { emptyState } from '../../src/types/state.js';
import { lcConfig, lines, model, planned, rep, snap, T0 } from './lifecycle-fixture.js';

test('a GPU with foreign processes and no replica is other; with a replica it is used; between unhealthy and used', () => {
  const c = lcConfig([], { nodes: 1 });
  const s = snap(c, [rep(c, 'gone-0', 'n1', [1])], [], T0, { n1: [1, 3] });
  if (s.nodes[0]!.reachable) s.nodes[0]!.report.gpus[3]!.healthy = false;
  const f = buildFleet(c, s, emptyState(), T0);
  assert.equal(
    f.nodeByName.get('n1')!.gpus.map((g) => g.bucket),
    ['free', 'used', 'free', 'unhealthy', 'free', 'free', 'free', 'free'],
  );
  const s2 = snap(c, [], [], T0, { n1: [3] });
  assert.equal(buildFleet(c, s2, emptyState(), T0).nodeByName.get('n1')!.gpus[3]!.bucket, 'other');
  assert.equal(capacityByClass(buildFleet(c, s2, emptyState(), T0)), [
    { class: 'H100', total: 8, used: 0, free: 7, unhealthy: 0, other: 1, unreachable: 0, cordoned: 0 },
  ]);
});

test('a missing foreign reads as none (an older agent, or nvidia-smi could not list processes)', () => {
  const c = lcConfig([], { nodes: 1 });
  const s = snap(c, [], [], T0);
  if (s.nodes[0]!.reachable) for (const g of s.nodes[0]!.report.gpus) delete g.foreign;
  const f = buildFleet(c, s, emptyState(), T0);
  assert.ok(f.nodeByName.get('n1')!.gpus.every((g) => g.bucket === 'free'));
  assert.equal(freeWholeNodes(f).get('ib-a')!.get('H100'), 1);
});

test('one-node placement never takes an other GPU: it takes the next free ones, or another node', () => {
  const c = lcConfig([model('m1', { gpus: 4 })], { nodes: 2 });
  // n1 has 7 free GPUs but index 3 is someone else's: 0,1,2,4 would do; n2's 3 is taken too, 4-7 free there.
  const { plan } = planned(c, snap(c, [], [], T0, { n1: [3], n2: [3] }));
  assert.equal(lines(plan), ['start m1-0 n1[0,1,2,4]']);
  // Best fit among what is left: n1's four free GPUs are exactly enough.
  const full = planned(c, snap(c, [], [], T0, { n1: [0, 2, 4, 6], n2: [1, 3, 5] })).plan;
  assert.equal(lines(full), ['start m1-0 n1[1,3,5,7]']);
  const neither = planned(c, snap(c, [], [], T0, { n1: [0, 2, 4, 6, 7], n2: [1, 3, 5, 7] })).plan;
  assert.equal(lines(neither), ['start m1-0 n2[0,2,4,6]']);
});

test('a node with an other GPU is not a free whole node: a multi-node replica goes elsewhere or nowhere', () => {
  const c = lcConfig([model('big', { gpus: 8, nodes: 2 })], { nodes: 3 });
  const { fleet, plan } = planned(c, snap(c, [], [], T0, { n1: [7] }));
  assert.equal(freeWholeNodes(fleet).get('ib-a')!.get('H100'), 2);
  assert.equal(lines(plan), ['start big-0 n2[0,1,2,3,4,5,6,7]+n3[0,1,2,3,4,5,6,7]']);
  const none = planned(c, snap(c, [], [], T0, { n1: [7], n2: [0] })).plan;
  assert.equal(none.actions, []);
  assert.equal(none.unplaceable[0]!.reason, 'needs 2 whole nodes in one fabric; free whole nodes: ib-a 1, ib-b 0');
});

test('stopping a replica that shares its GPU with someone else does not make that GPU free for this plan', () => {
  const c = lcConfig([model('m1', { gpus: 8 })], { nodes: 1, routers: [] });
  const s = snap(c, [rep(c, 'gone-0', 'n1', [0, 1, 2, 3, 4, 5, 6, 7])], [], T0, { n1: [5] });
  const { plan } = planned(c, s);
  assert.equal(lines(plan), ['stop gone-0 (not in models.yaml)']);
  assert.equal(
    plan.unplaceable.map((u) => u.model),
    ['m1'],
  );
});

test('STATUS.md shows the other GPUs: a capacity column, a needs-attention line, and where they are', () => {
  const c = lcConfig([], { nodes: 2 });
  const f = buildFleet(c, snap(c, [], [], T0, { n1: [3], n2: [0, 1, 4] }), emptyState(), T0);
  const report = summarize(f, []);
  assert.equal(report.nodes.other, [
    { node: 'n1', gpus: [3] },
    { node: 'n2', gpus: [0, 1, 4] },
  ]);
  const md = renderStatusMarkdown(report);
  assert.match(md, /\| GPU class \| Usage \| Total \| Used \| Free \| Unhealthy \| Other \| Unreachable \| Cordoned \|/);
  assert.match(md, /\| H100 \| `[█×▓?▒░ ]+` \| 16 \| 0 \| 12 \| 0 \| 4 \| 0 \| 0 \|/);
  assert.match(md, /- 4 GPUs in use by someone else \(placement leaves them alone\): n1:3, n2:\\\[0-1,4\\\]\n/);
  assert.match(md, /\n\*\*GPUs in other hands\*\* \(4\): n1:3, n2:\[0-1,4\]\n/);
  assert.match(md, /`▓` other/);
});

test.run();
