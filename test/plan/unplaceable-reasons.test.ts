// The reason an unplaceable model gets (src/plan/unplaceable-reason.ts) is one
// a person can act on: what one replica needs, and what each fabric has left,
// counted the way placement counts (healthy GPUs of one class on one node;
// whole nodes of one class, large enough, in one fabric).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { planFleet } from '../../src/plan/plan-fleet.js';
import { emptyState } from '../../src/types/state.js';
import { makeFleet, type FleetIn } from '../fixtures/index.js';

function reasons(input: FleetIn): string[] {
  const plan = planFleet(makeFleet(input), emptyState());
  assert.equal(plan.actions, [], 'nothing placed');
  return plan.unplaceable.map((u) => `${u.model} ${u.missing}: ${u.reason}`).sort();
}

test('one node, no gpuClass, in a mixed fleet: a replica needs its GPUs of one class, and a node offers its largest healthy class', () => {
  const got = reasons({
    nodes: [
      { name: 'a1', gpus: 4, classes: ['H100', 'H100', 'A100', 'A100'] },
      { name: 'b1', fabric: 'ib-b', gpus: 3, cls: 'A100', unhealthy: [0] },
    ],
    models: [{ name: 'm', gpus: 3 }],
  });
  assert.equal(got, ['m 1: needs 3 free GPUs of one class on one node; most free on one node: ib-a 2, ib-b 2']);
});

test('one node: "of one class" only where it matters (one class in the fleet, or one GPU per replica)', () => {
  assert.equal(
    reasons({
      nodes: [
        { name: 'a1', gpus: 2 },
        { name: 'b1', fabric: 'ib-b', gpus: 1 },
      ],
      models: [{ name: 'm', gpus: 3 }],
    }),
    ['m 1: needs 3 free GPUs on one node; most free on one node: ib-a 2, ib-b 1'],
  );
  const mixed = [
    { name: 'a1', gpus: 1, cls: 'H100', unhealthy: [0] },
    { name: 'a2', gpus: 1, cls: 'A100', unhealthy: [0] },
  ];
  assert.equal(reasons({ nodes: mixed, models: [{ name: 'm', gpus: 1 }] }), ['m 1: needs 1 free GPU on one node; most free on one node: ib-a 0']);
});

test('one node with a gpuClass: only that class is counted, per fabric, the most on any one node', () => {
  const got = reasons({
    nodes: [
      { name: 'a1', gpus: 4, classes: ['H100', 'H100', 'A100', 'A100'] },
      { name: 'a2', gpus: 1, cls: 'A100' },
      { name: 'b1', fabric: 'ib-b', gpus: 3, cls: 'A100' },
    ],
    models: [{ name: 'm', gpus: 4, gpuClass: 'A100' }],
  });
  assert.equal(got, ['m 1: needs 4 free A100 GPUs on one node; most free on one node: ib-a 2, ib-b 3']);
});

test('multi-node, no gpuClass: a fabric offers its largest class of whole nodes; smaller nodes are said not to count', () => {
  const got = reasons({
    nodes: [
      { name: 'a1', gpus: 8 },
      { name: 'a2', gpus: 4 },
      { name: 'b1', fabric: 'ib-b', gpus: 8, cls: 'A100' },
      { name: 'b2', fabric: 'ib-b', gpus: 8, cls: 'A100' },
      { name: 'b3', fabric: 'ib-b', gpus: 8, cls: 'B200' },
    ],
    models: [{ name: 'm', gpus: 8, nodes: 3 }],
  });
  assert.equal(got, ['m 1: needs 3 whole nodes in one fabric; free whole nodes: ib-a 1, ib-b 2 (only nodes with at least 8 GPUs count)']);
});

test('multi-node with a gpuClass: other classes count for nothing; every node large enough says nothing about size', () => {
  const got = reasons({
    nodes: [
      { name: 'a1', gpus: 8 },
      { name: 'b1', fabric: 'ib-b', gpus: 8, cls: 'A100' },
      { name: 'b2', fabric: 'ib-b', gpus: 8, cls: 'A100' },
    ],
    models: [{ name: 'm', gpus: 8, nodes: 3, gpuClass: 'A100' }],
  });
  assert.equal(got, ['m 1: needs 3 whole A100 nodes in one fabric; free whole A100 nodes: ib-a 0, ib-b 2']);
});

test('a class that only an unreachable node has is named as seen on no reachable node', () => {
  const got = reasons({
    nodes: [
      { name: 'a1', gpus: 8, condition: 'unreachable', cls: 'B200' },
      { name: 'a2', gpus: 4 },
    ],
    models: [
      { name: 'm', gpus: 8, nodes: 2, gpuClass: 'B200' },
      { name: 'o', gpus: 2, gpuClass: 'B200' },
      { name: 'p', gpus: 8, gpuClass: 'H100' },
    ],
  });
  assert.equal(got, [
    'm 1: needs 2 whole B200 nodes in one fabric; free whole B200 nodes: ib-a 0 (no reachable node has B200 GPUs)',
    'o 1: needs 2 free B200 GPUs on one node; most free on one node: ib-a 0 (no reachable node has B200 GPUs)',
    'p 1: needs 8 free H100 GPUs on one node; most free on one node: ib-a 4',
  ]);
});

test.run();
