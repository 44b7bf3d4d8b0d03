// Which reason a replica that cannot stay gets, and which replicas are stopped
// at all (src/plan/classify.ts): one reason per replica, by precedence (class,
// then cordon, then health); a GPU found by its index even when the node's list
// has gaps; only ranks a node can be told about are stopped.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { classify } from '../../src/plan/classify.js';
import { planFleet } from '../../src/plan/plan-fleet.js';
import { emptyState } from '../../src/types/state.js';
import type { Fleet } from '../../src/types/fleet.js';
import { makeFleet, oneRank } from '../fixtures/index.js';

const brief = (f: Fleet) =>
  planFleet(f, emptyState()).actions.map(
    (a) => `${a.op} ${a.replica}${a.op === 'stop' ? ` (${a.reason})` : ''} ${a.placement.map((p) => `${p.node}:${p.gpus.join(',')}`).join('+')}`,
  );

test('a replica with a changed class on a cordoned node with an unhealthy GPU is replaced for its class', () => {
  const f = makeFleet({
    nodes: [{ name: 'a1', cordon: true, unhealthy: [0], cls: 'A100' }, { name: 'a2' }],
    replicas: [oneRank('m-0', 'a1', [0])],
    models: [{ name: 'm', gpuClass: 'H100' }],
  });
  assert.equal(brief(f), ['start m-1 a2:0', 'stop m-0 (gpuClass changed) a1:0']);
});

test('cordoned and unhealthy at once: the reason is the cordon', () => {
  const f = makeFleet({
    nodes: [{ name: 'a1', cordon: true, unhealthy: [0] }, { name: 'a2' }],
    replicas: [oneRank('m-0', 'a1', [0])],
    models: [{ name: 'm' }],
  });
  assert.equal(brief(f), ['start m-1 a2:0', 'stop m-0 (node cordoned) a1:0']);
});

test("a GPU is found by its index when the node's list has gaps (GPUs 2 and 3 only): GPU 3 unhealthy replaces the replica", () => {
  const f = makeFleet({
    nodes: [{ name: 'a1', gpus: 4, unhealthy: [3] }, { name: 'a2' }],
    replicas: [oneRank('m-0', 'a1', [3])],
    models: [{ name: 'm' }],
  });
  const a1 = f.nodeByName.get('a1')!;
  a1.gpus = a1.gpus.slice(2);
  assert.equal(brief(f), ['start m-1 a2:0', 'stop m-0 (GPU unhealthy) a1:3']);
});

test('a lost replica of a model no longer in models.yaml is stopped where it still runs, as not in models.yaml', () => {
  const f = makeFleet({
    nodes: [{ name: 'a1', condition: 'lost' }, { name: 'a2' }],
    replicas: [
      {
        id: 'x-0',
        model: 'x',
        ranks: [
          { node: 'a1', gpus: [0] },
          { node: 'a2', gpus: [1] },
        ],
      },
    ],
    models: [],
  });
  assert.equal(brief(f), ['stop x-0 (not in models.yaml) a2:1']);
});

test('a failed replica on an unreachable node gets no stop (nothing can be told), and is replaced', () => {
  const f = makeFleet({
    nodes: [{ name: 'a1', condition: 'unreachable' }, { name: 'a2' }],
    replicas: [oneRank('m-0', 'a1', [0], { state: 'failed' })],
    models: [{ name: 'm' }],
  });
  assert.equal(brief(f), ['start m-1 a2:0']);
});

test('a model whose engine is not configured has no spec: its replicas are kept whatever spec they report', () => {
  const f = makeFleet({
    nodes: [{ name: 'a1' }],
    replicas: [oneRank('m-0', 'a1', [0], { spec: 'other' })],
    models: [{ name: 'm', engine: 'sglang' }],
  });
  const group = classify(f).byModel.get('m')!;
  assert.equal([group.spec, group.kept.map((r) => r.id), group.notKept], [null, ['m-0'], []]);
  assert.equal(brief(f), []);
});

test('free stops are in replica-id order (compareNames: plain code units) whatever order the fleet lists them', () => {
  const f = makeFleet({
    nodes: [{ name: 'a1' }],
    replicas: [oneRank('x-10', 'a1', [0]), oneRank('x-9', 'a1', [1]), oneRank('m-0', 'a1', [2], { state: 'failed' })],
    models: [{ name: 'm', replicas: 0 }],
  });
  f.replicas.reverse();
  assert.equal(
    classify(f).freeStops.map((s) => s.replica),
    ['m-0', 'x-10', 'x-9'],
  );
});

test('a replica reporting no spec with one rank of the wrong size is judged changed (every rank must fit)', () => {
  const full = [0, 1, 2, 3, 4, 5, 6, 7];
  const f = makeFleet({
    nodes: ['a1', 'a2', 'a3', 'a4'].map((name) => ({ name })),
    replicas: [
      {
        id: 'ds-0',
        model: 'ds',
        spec: null,
        ranks: [
          { node: 'a1', gpus: full },
          { node: 'a2', gpus: [0, 1, 2, 3] },
        ],
      },
    ],
    models: [{ name: 'ds', gpus: 8, nodes: 2 }],
  });
  assert.equal(brief(f), ['start ds-1 a3:0,1,2,3,4,5,6,7+a4:0,1,2,3,4,5,6,7', 'stop ds-0 (spec changed) a1:0,1,2,3,4,5,6,7+a2:0,1,2,3']);
});

test('a rank on a node the fleet does not know, or on a GPU its node does not report, is no reason to move and is never stopped', () => {
  const f = makeFleet({
    nodes: [{ name: 'a1' }, { name: 'a2' }],
    replicas: [oneRank('m-0', 'a1', [0]), oneRank('x-0', 'a2', [0])],
    models: [{ name: 'm' }],
  });
  f.replicas[0]!.ranks = [{ node: 'a1', rank: 0, gpus: [9] }];
  f.replicas[1]!.ranks = [
    { node: 'a2', rank: 0, gpus: [0] },
    { node: 'gone', rank: 1, gpus: [0] },
  ];
  assert.equal(brief(f), ['stop x-0 (not in models.yaml) a2:0']);
  f.replicas[0]!.ranks = [{ node: 'gone', rank: 0, gpus: [0] }];
  assert.equal(brief(f), ['stop x-0 (not in models.yaml) a2:0']);
});

test.run();
