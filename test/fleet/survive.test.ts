// Survive (docs/placement.md#survive): what the loss of each node and each fabric
// would leave of every model, counted over where replicas are.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { surviveReport, surviveWarnings } from '../../src/fleet/survive.js';
import { makeFleet, type FleetIn, oneRank } from '../fixtures/fleet.js';

function fleet(replicas: FleetIn['replicas'], models: FleetIn['models'], nodes?: FleetIn['nodes']) {
  return makeFleet({ nodes: nodes ?? [{ name: 'a1' }, { name: 'a2' }, { name: 'b1', fabric: 'ib-b' }], replicas, models });
}

test('one replica: losing its node leaves none; the free GPUs elsewhere could take it', () => {
  const f = fleet([oneRank('m-0', 'a1', [0])], [{ name: 'm', survive: 'node' }]);
  const s = surviveReport(f);
  assert.equal(s.node, { worst: 'a1', models: { m: { from: 1, to: 0, worst: 'a1', roomToReplace: true } } });
  assert.equal(s.fabric, { worst: 'ib-a', models: { m: { from: 1, to: 0, worst: 'ib-a', roomToReplace: true } } });
  assert.equal(surviveWarnings(f, s), ["model 'm' does not survive the loss of node a1: all its 1 replica run there (models.yaml survive: node)"]);
});

test('two replicas on two nodes survive a node, not their fabric; survive: fabric says so', () => {
  const replicas = [oneRank('m-0', 'a1', [0]), oneRank('m-1', 'a2', [0])];
  const f = fleet(replicas, [{ name: 'm', replicas: 2, survive: 'node' }]);
  const s = surviveReport(f);
  assert.equal(s.node.models.m, { from: 2, to: 1, worst: 'a1', roomToReplace: true });
  assert.equal(s.fabric.models.m, { from: 2, to: 0, worst: 'ib-a', roomToReplace: true });
  assert.equal(surviveWarnings(f, s), []);
  const g = fleet(replicas, [{ name: 'm', replicas: 2, survive: 'fabric' }]);
  assert.equal(surviveWarnings(g, surviveReport(g)), [
    "model 'm' does not survive the loss of fabric ib-a: all its 2 replicas run there (models.yaml survive: fabric)",
  ]);
});

test('each model has its own worst; the top-level worst is the loss that leaves the fewest replicas in all', () => {
  const f = fleet(
    [oneRank('m-0', 'a1', [0]), oneRank('m-1', 'a2', [0]), oneRank('n-0', 'a2', [1]), oneRank('n-1', 'b1', [0]), oneRank('o-0', 'b1', [1])],
    [
      { name: 'm', replicas: 2 },
      { name: 'n', replicas: 2 },
      { name: 'o', replicas: 1 },
    ],
  );
  const s = surviveReport(f);
  // a2 holds 2 replicas, b1 holds 2 too: the tie goes to the name.
  assert.is(s.node.worst, 'a2');
  assert.equal(Object.fromEntries(Object.entries(s.node.models).map(([k, v]) => [k, [v.from, v.to, v.worst]])), {
    m: [2, 1, 'a1'],
    n: [2, 1, 'a2'],
    o: [1, 0, 'b1'],
  });
  // ib-a holds 3 (m-0, m-1, n-0), ib-b 2.
  assert.is(s.fabric.worst, 'ib-a');
});

test('no room to replace: the free GPUs that remain cannot hold what was lost', () => {
  const f = fleet([oneRank('m-0', 'a1', [0, 1, 2, 3, 4, 5, 6, 7])], [{ name: 'm', gpus: 8 }], [{ name: 'a1' }, { name: 'a2', unhealthy: [3] }]);
  assert.equal(surviveReport(f).node.models.m, { from: 1, to: 0, worst: 'a1', roomToReplace: false });
});

test('a model with no replica: from 0, worst null, and its survive: is broken', () => {
  const f = fleet([], [{ name: 'm', survive: 'node' }]);
  const s = surviveReport(f);
  assert.equal(s.node, { worst: null, models: { m: { from: 0, to: 0, worst: null, roomToReplace: true } } });
  assert.equal(surviveWarnings(f, s), ["model 'm' has no replica, so it survives no node loss (models.yaml survive: node)"]);
});

test('a multi-node replica is lost with any of its nodes; failed and lost replicas count for nothing', () => {
  const f = fleet(
    [
      {
        id: 'm-0',
        model: 'm',
        ranks: [
          { node: 'a1', gpus: [0] },
          { node: 'a2', gpus: [0] },
        ],
      },
      {
        id: 'm-1',
        model: 'm',
        ranks: [
          { node: 'b1', gpus: [0] },
          { node: 'b2', gpus: [0] },
        ],
        state: 'failed',
      },
    ],
    [{ name: 'm', nodes: 2, replicas: 2 }],
    [{ name: 'a1' }, { name: 'a2' }, { name: 'b1', fabric: 'ib-b' }, { name: 'b2', fabric: 'ib-b' }],
  );
  assert.equal(surviveReport(f).node.models.m, { from: 1, to: 0, worst: 'a1', roomToReplace: false });
});

test('room to replace counts each free GPU under its own class: a node with 4 H100 and 4 A100 free has room for a 4-GPU A100 replica', () => {
  const classes = ['H100', 'H100', 'H100', 'H100', 'A100', 'A100', 'A100', 'A100'];
  const f = fleet(
    [oneRank('m-0', 'a1', [0, 1, 2, 3])],
    [{ name: 'm', gpus: 4, gpuClass: 'A100' }],
    [
      { name: 'a1', cls: 'A100' },
      { name: 'a2', classes },
    ],
  );
  assert.equal(surviveReport(f).node.models.m, { from: 1, to: 0, worst: 'a1', roomToReplace: true });
});

test('room is worked out per GPU class: two models of one shape but different classes each get their own room', () => {
  const f = fleet(
    [oneRank('a-0', 'a1', [0, 1, 2, 3, 4, 5, 6, 7]), oneRank('h-0', 'h1', [0, 1, 2, 3, 4, 5, 6, 7])],
    [
      { name: 'a', gpus: 8, gpuClass: 'A100' },
      { name: 'h', gpus: 8, gpuClass: 'H100' },
    ],
    [
      { name: 'a1', cls: 'A100' },
      { name: 'a2', cls: 'A100' },
      { name: 'h1', cls: 'H100' },
    ],
  );
  const models = surviveReport(f).node.models;
  assert.equal([models.a?.roomToReplace, models.h?.roomToReplace], [true, false]);
});

test.run();
