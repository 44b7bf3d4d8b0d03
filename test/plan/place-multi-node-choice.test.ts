// Multi-node placement (docs/placement.md step 3, `nodes: k`): which pool of free
// whole nodes (one fabric, one class) a replica takes, including the second
// replica of a model once the first has taken nodes, and the last tie-breaks
// (fabric name, then class name) whatever order the node names put the pools in.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { planFleet } from '../../src/plan/plan-fleet.js';
import type { StartAction } from '../../src/types/plan.js';
import { emptyState } from '../../src/types/state.js';
import { makeFleet, type NodeSpec, startOf } from '../fixtures/index.js';

const starts = (plan: ReturnType<typeof planFleet>) => plan.actions.filter((a): a is StartAction => a.op === 'start');
/** `n1+n2 node`: the nodes of each start and its weights locality. */
const brief = (plan: ReturnType<typeof planFleet>) => starts(plan).map((s) => `${s.placement.map((p) => p.node).join('+')} ${s.weights}`);
const HOLDS = ['org/ds'];
/** Nodes n1, n2, … in the order given, each as its spec says. */
const numbered = (...specs: Omit<NodeSpec, 'name'>[]): NodeSpec[] => specs.map((n, i) => ({ name: `n${i + 1}`, ...n }));

test('a gpuClass multi-node model takes whole nodes of that class and leaves free whole nodes of another class alone', () => {
  const fleet = makeFleet({
    nodes: numbered({ cls: 'A100' }, { cls: 'A100' }, { cls: 'H100' }, { cls: 'H100' }),
    models: [{ name: 'ds', gpus: 8, nodes: 2, gpuClass: 'H100' }],
  });
  const plan = planFleet(fleet, emptyState());
  assert.equal(starts(plan), [
    startOf(
      'ds-0',
      [
        { node: 'n3', gpus: [0, 1, 2, 3, 4, 5, 6, 7] },
        { node: 'n4', gpus: [0, 1, 2, 3, 4, 5, 6, 7] },
      ],
      '1 of 1 replica missing',
    ),
  ]);
  assert.equal(plan.unplaceable, []);
});

test('the second replica counts only the holders the first left unchosen: a fabric whose holders are taken loses to one with a holder left', () => {
  // ib-x: 4 whole nodes, 2 of them holders; ib-y: 2 whole nodes, 1 holder.
  // ds-0 takes ib-x's two holders (2 chosen holders beat 1); for ds-1 ib-x has
  // no holder left and ib-y still has one, so ds-1 goes to ib-y.
  const xFirst: NodeSpec[] = [
    { name: 'n1', fabric: 'ib-x', holds: HOLDS },
    { name: 'n2', fabric: 'ib-x', holds: HOLDS },
    { name: 'n3', fabric: 'ib-y', holds: HOLDS },
    { name: 'n4', fabric: 'ib-y' },
    { name: 'n5', fabric: 'ib-x' },
    { name: 'n6', fabric: 'ib-x' },
  ];
  const models = [{ name: 'ds', gpus: 8, nodes: 2, replicas: 2 }];
  assert.equal(brief(planFleet(makeFleet({ nodes: xFirst, models }), emptyState())), ['n1+n2 node', 'n3+n4 fabric']);
  // The same with ib-y's nodes first by name: the pools are compared the other way round.
  const yFirst: NodeSpec[] = [
    { name: 'n1', fabric: 'ib-y', holds: HOLDS },
    { name: 'n2', fabric: 'ib-y' },
    { name: 'n3', fabric: 'ib-x', holds: HOLDS },
    { name: 'n4', fabric: 'ib-x', holds: HOLDS },
    { name: 'n5', fabric: 'ib-x' },
    { name: 'n6', fabric: 'ib-x' },
  ];
  assert.equal(brief(planFleet(makeFleet({ nodes: yFirst, models }), emptyState())), ['n3+n4 node', 'n1+n2 fabric']);
});

test('best fit counts the free whole nodes a fabric has left after this plan took some', () => {
  // Both fabrics hold the weights (ib-b through n8, too small to be chosen).
  // ds-0 takes ib-a's holders n3+n4; ib-a then has 2 free whole nodes left,
  // ib-b 3, so best fit sends ds-1 to ib-a again.
  const fleet = makeFleet({
    nodes: [
      { name: 'n1', fabric: 'ib-b' },
      { name: 'n2', fabric: 'ib-b' },
      { name: 'n3', fabric: 'ib-a', holds: HOLDS },
      { name: 'n4', fabric: 'ib-a', holds: HOLDS },
      { name: 'n5', fabric: 'ib-a' },
      { name: 'n6', fabric: 'ib-a' },
      { name: 'n7', fabric: 'ib-b' },
      { name: 'n8', fabric: 'ib-b', gpus: 2, holds: HOLDS },
    ],
    models: [{ name: 'ds', gpus: 8, nodes: 2, replicas: 2 }],
  });
  assert.equal(brief(planFleet(fleet, emptyState())), ['n3+n4 node', 'n5+n6 fabric']);
});

test('fabrics equal on holders and fit go by fabric name, not by which fabric has the first node name', () => {
  const fleet = makeFleet({
    nodes: numbered({ fabric: 'ib-b' }, { fabric: 'ib-b' }, { fabric: 'ib-a' }, { fabric: 'ib-a' }),
    models: [{ name: 'ds', gpus: 8, nodes: 2 }],
  });
  assert.equal(brief(planFleet(fleet, emptyState())), ['n3+n4 none']);
});

test('a model without gpuClass, offered two classes equally in one fabric, takes the class first by name, whatever the node names', () => {
  const models = [{ name: 'ds', gpus: 8, nodes: 2 }];
  const h100First = makeFleet({ nodes: numbered({ cls: 'H100' }, { cls: 'H100' }, { cls: 'A100' }, { cls: 'A100' }), models });
  assert.equal(brief(planFleet(h100First, emptyState())), ['n3+n4 none']);
  const a100First = makeFleet({ nodes: numbered({ cls: 'A100' }, { cls: 'A100' }, { cls: 'H100' }, { cls: 'H100' }), models });
  assert.equal(brief(planFleet(a100First, emptyState())), ['n1+n2 none']);
});

test.run();
