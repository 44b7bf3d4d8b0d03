// planFleet and drains (docs/placement.md, docs/safety.md#stopping-a-replica): a
// stop that begins with a drain keeps its GPUs this tick, so nothing lands on
// them; and a model that waits only for those GPUs is not unplaceable.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { lcConfig, model, planned, rep, router, snap, specOf } from './lifecycle-fixture.js';

const all = [0, 1, 2, 3, 4, 5, 6, 7];

test('a replica removed from models.yaml drains with its GPUs still held: nothing starts on them, and the model waiting for them is not unplaceable', () => {
  const c = lcConfig([model('m', { gpus: 8 })], { nodes: 1 });
  const { plan } = planned(c, snap(c, [rep(c, 'x-0', 'n1', all)], [router('rt-1')]));
  assert.equal(plan.actions, [
    { op: 'stop', replica: 'x-0', model: 'x', placement: [{ node: 'n1', gpus: all }], reason: 'not in models.yaml', waitFor: [], phase: 'drain' },
  ]);
  assert.equal(plan.unplaceable, []);
});

test("a canary that waits only for a draining replica's GPUs is not unplaceable", () => {
  const rollout = { canary: 1, holdMs: 600_000, maxErrorRate: 0.05 };
  const c = lcConfig([model('m', { gpus: 8, rollout })], { nodes: 2 });
  const reps = [rep(c, 'm-0', 'n1', all, { spec: 'oldspec1' }), rep(c, 'x-0', 'n2', all)];
  const { plan } = planned(c, snap(c, reps, [router('rt-1')]));
  assert.equal(plan.actions, [
    { op: 'stop', replica: 'x-0', model: 'x', placement: [{ node: 'n2', gpus: all }], reason: 'not in models.yaml', waitFor: [], phase: 'drain' },
  ]);
  assert.equal(plan.unplaceable, []);
  assert.equal(
    plan.rollouts!.map((r) => [r.model, r.stage, r.text]),
    [['m', 'canary', `canary 1 of 1 for spec ${specOf(c, 'm')}: starting`]],
  );
});

test('what would not fit even with every drain over stays unplaceable', () => {
  // m needs two 8-GPU nodes' worth; the drain frees one.
  const c = lcConfig([model('m', { gpus: 8, replicas: 2 })], { nodes: 1 });
  const { plan } = planned(c, snap(c, [rep(c, 'x-0', 'n1', all)], [router('rt-1')]));
  assert.equal(plan.unplaceable, [{ model: 'm', missing: 2, reason: 'needs 8 free GPUs on one node; most free on one node: ib-a 0, ib-b 0' }]);
});

test.run();
