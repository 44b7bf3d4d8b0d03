// Spread (docs/placement.md#spread): replicas of a model each on a node of their
// own by default, even at the cost of a weights tier; `fabric` also on fabrics
// of their own where it can; `none` is the old order, weights tier first.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { planFleet } from '../../src/plan/plan-fleet.js';
import { emptyState } from '../../src/types/state.js';
import { brief, makeFleet, oneRank, type FleetIn } from '../fixtures/fleet.js';

function starts(input: FleetIn): string[] {
  return planFleet(makeFleet(input), emptyState()).actions.map(brief);
}

const ONE_HOLDER: FleetIn['nodes'] = [{ name: 'a1', holds: ['org/m', 'org/n'] }, { name: 'a2' }, { name: 'a3' }];

test('default spread: with the weights on one node, two replicas land on two nodes (the second fetches)', () => {
  assert.equal(starts({ nodes: ONE_HOLDER, models: [{ name: 'm', replicas: 2 }] }), ['start m-0 a1', 'start m-1 a2']);
});

test('two models whose weights one node holds: neither puts both replicas there', () => {
  const out = starts({
    nodes: ONE_HOLDER,
    models: [
      { name: 'm', replicas: 2 },
      { name: 'n', replicas: 2 },
    ],
  });
  assert.equal(out, ['start m-0 a1', 'start m-1 a2', 'start n-0 a1', 'start n-1 a2']);
});

test('spread: none ranks the weights tier first, as before: both replicas on the holder', () => {
  assert.equal(starts({ nodes: ONE_HOLDER, models: [{ name: 'm', replicas: 2, spread: 'none' }] }), ['start m-0 a1', 'start m-1 a1']);
});

test('once every node has one, the weights tier decides again', () => {
  const nodes: FleetIn['nodes'] = [{ name: 'a1', holds: ['org/m'] }, { name: 'a2' }];
  assert.equal(starts({ nodes, models: [{ name: 'm', replicas: 3 }] }), ['start m-0 a1', 'start m-1 a2', 'start m-2 a1']);
});

test('a kept replica counts: the new one goes to another node although the kept one sits on the holder', () => {
  const out = starts({
    nodes: ONE_HOLDER,
    replicas: [{ id: 'm-0', model: 'm', ranks: [{ node: 'a1', gpus: [0] }] }],
    models: [{ name: 'm', replicas: 2 }],
  });
  assert.equal(out, ['start m-1 a2']);
});

test('spread: fabric puts the second replica on another fabric (weights none) rather than a fabric-mate (weights fabric)', () => {
  const nodes: FleetIn['nodes'] = [{ name: 'a1', holds: ['org/m'] }, { name: 'a2' }, { name: 'b1', fabric: 'ib-b' }];
  assert.equal(starts({ nodes, models: [{ name: 'm', replicas: 2 }] }), ['start m-0 a1', 'start m-1 a2']);
  assert.equal(starts({ nodes, models: [{ name: 'm', replicas: 2, spread: 'fabric' }] }), ['start m-0 a1', 'start m-1 b1']);
});

test('spread: fabric where it cannot: a third replica with two fabrics still gets a node of its own', () => {
  const nodes: FleetIn['nodes'] = [{ name: 'a1', holds: ['org/m'] }, { name: 'a2' }, { name: 'b1', fabric: 'ib-b' }];
  assert.equal(starts({ nodes, models: [{ name: 'm', replicas: 3, spread: 'fabric' }] }), ['start m-0 a1', 'start m-1 b1', 'start m-2 a2']);
});

test('multi-node, spread: fabric: the second replica takes whole nodes of the other fabric', () => {
  const nodes: FleetIn['nodes'] = [
    { name: 'a1', holds: ['org/m'] },
    { name: 'a2', holds: ['org/m'] },
    { name: 'a3' },
    { name: 'a4' },
    { name: 'b1', fabric: 'ib-b' },
    { name: 'b2', fabric: 'ib-b' },
  ];
  const model = { name: 'm', gpus: 8, nodes: 2, replicas: 2 };
  assert.equal(starts({ nodes, models: [model] }), ['start m-0 a1+a2', 'start m-1 a3+a4']);
  assert.equal(starts({ nodes, models: [{ ...model, spread: 'fabric' as const }] }), ['start m-0 a1+a2', 'start m-1 b1+b2']);
});

test('spread: fabric counts the kept replicas too: with one kept on ib-a, the new one goes to ib-b', () => {
  const nodes: FleetIn['nodes'] = [{ name: 'a1' }, { name: 'a2' }, { name: 'b1', fabric: 'ib-b' }];
  const out = starts({ nodes, replicas: [oneRank('m-0', 'a1', [0])], models: [{ name: 'm', replicas: 2, spread: 'fabric' }] });
  assert.equal(out, ['start m-1 b1']);
});

test.run();
