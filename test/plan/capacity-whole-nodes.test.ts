// Free whole nodes for this plan (docs/placement.md; wholeClass in
// src/plan/capacity.ts), which multi-node replicas need: no replica staying on
// the node, every GPU healthy, of one class and free. Two ways a node fails that
// although its GPUs look fine: a replica there that holds none of its GPUs, and
// GPUs that someone else's processes occupy.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildCapacity, wholeClass } from '../../src/plan/capacity.js';
import { planFleet } from '../../src/plan/plan-fleet.js';
import type { Fleet } from '../../src/types/fleet.js';
import { emptyState } from '../../src/types/state.js';
import { brief, makeFleet } from '../fixtures/index.js';

/** Every GPU of the node runs compute processes llmgw did not start: bucket `other` (src/fleet/gpus.ts). */
function otherProcessesOn(fleet: Fleet, name: string): Fleet {
  const node = fleet.nodeByName.get(name)!;
  for (const gpu of node.gpus) {
    gpu.foreign = 1;
    gpu.bucket = 'other';
  }
  node.freeWholeClass = null;
  return fleet;
}

const whole = (fleet: Fleet) => buildCapacity(fleet, new Set()).nodes.map((c) => [c.node.name, wholeClass(c)]);

test('a node where a replica runs is no free whole node, even when that replica holds none of its GPUs', () => {
  const fleet = makeFleet({
    nodes: [
      { name: 'a1', gpus: 2 },
      { name: 'a2', gpus: 2 },
    ],
    // The agent reports a rank on a1 with no GPU indices (the schema allows an empty list).
    replicas: [{ id: 'x-0', model: 'x', ranks: [{ node: 'a1', gpus: [] }] }],
    models: [
      { name: 'x', gpus: 1 },
      { name: 'ds', gpus: 2, nodes: 2 },
    ],
  });
  assert.equal(whole(fleet), [
    ['a1', null],
    ['a2', 'H100'],
  ]);
  const plan = planFleet(fleet, emptyState());
  assert.equal(plan.actions.map(brief), []);
  assert.equal(plan.unplaceable, [{ model: 'ds', missing: 1, reason: 'needs 2 whole nodes in one fabric; free whole nodes: ib-a 1' }]);
});

test("a node whose GPUs all run someone else's processes is no free whole node: a multi-node replica goes to the nodes that are", () => {
  const fleet = otherProcessesOn(
    makeFleet({
      nodes: [
        { name: 'a1', gpus: 2 },
        { name: 'a2', gpus: 2 },
        { name: 'a3', gpus: 2 },
      ],
      models: [{ name: 'ds', gpus: 2, nodes: 2, replicas: 2 }],
    }),
    'a1',
  );
  assert.equal(whole(fleet), [
    ['a1', null],
    ['a2', 'H100'],
    ['a3', 'H100'],
  ]);
  const plan = planFleet(fleet, emptyState());
  assert.equal(plan.actions.map(brief), ['start ds-0 a2+a3']);
  assert.equal(plan.unplaceable, [{ model: 'ds', missing: 1, reason: 'needs 2 whole nodes in one fabric; free whole nodes: ib-a 0' }]);
});

test.run();
