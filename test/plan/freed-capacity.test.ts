// What a stop that does not wait frees for the same plan (src/plan/capacity.ts,
// docs/placement.md step 2): its GPUs and its port; but a port another staying
// replica on the node also uses stays taken.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { planFleet } from '../../src/plan/plan-fleet.js';
import { emptyState } from '../../src/types/state.js';
import type { Fleet } from '../../src/types/fleet.js';
import { makeFleet } from '../fixtures/index.js';

const brief = (f: Fleet) =>
  planFleet(f, emptyState()).actions.map(
    (a) => `${a.op} ${a.replica} ${a.op === 'start' ? a.port : a.reason} ${a.placement.map((p) => `${p.node}:${p.gpus.join(',')}`).join('+')}`,
  );

test("a removed model's replica frees its GPU and its port for this plan's start on the same node", () => {
  const f = makeFleet({
    nodes: [{ name: 'a1', gpus: 1 }],
    replicas: [{ id: 'x-0', model: 'x', ranks: [{ node: 'a1', gpus: [0] }], port: 8000 }],
    models: [{ name: 'm', gpus: 1 }],
  });
  assert.equal(brief(f), ['stop x-0 not in models.yaml a1:0', 'start m-0 8000 a1:0']);
});

test('a freed port that a staying replica on the node also uses stays taken; the freed GPUs are taken lowest first', () => {
  const f = makeFleet({
    nodes: [{ name: 'a1', gpus: 3 }],
    replicas: [
      { id: 'x-0', model: 'x', ranks: [{ node: 'a1', gpus: [1] }], port: 8000 },
      { id: 'y-0', model: 'y', ranks: [{ node: 'a1', gpus: [0] }], port: 8001, state: 'failed' },
      { id: 'o-0', model: 'o', ranks: [{ node: 'a1', gpus: [2] }], port: 8000 },
    ],
    models: [{ name: 'o' }, { name: 'p', gpus: 2 }],
  });
  assert.equal(brief(f), ['stop x-0 not in models.yaml a1:1', 'stop y-0 not in models.yaml a1:0', 'start p-0 8001 a1:0,1']);
});

test('a replica replaced with surge keeps its GPUs until its successor runs: they are not free for this plan', () => {
  const f = makeFleet({
    nodes: [{ name: 'a1', gpus: 2, cordon: false }],
    replicas: [{ id: 'm-0', model: 'm', ranks: [{ node: 'a1', gpus: [0, 1] }], spec: 'old' }],
    models: [{ name: 'm', gpus: 2 }],
  });
  const plan = planFleet(f, emptyState());
  assert.equal(plan.actions, []);
  assert.equal(
    plan.unplaceable.map((u) => u.reason),
    ['needs 2 free GPUs on one node; most free on one node: ib-a 0'],
  );
});

test.run();
