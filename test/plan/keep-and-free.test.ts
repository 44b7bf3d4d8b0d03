import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { planFleet } from '../../src/plan/plan-fleet.js';
import type { Action, StartAction, StopAction } from '../../src/types/plan.js';
import { emptyState } from '../../src/types/state.js';
import { brief, makeFleet, wholeNodes, oneRank } from '../fixtures/index.js';

const starts = (actions: Action[]) => actions.filter((a): a is StartAction => a.op === 'start');
const stops = (actions: Action[]) => actions.filter((a): a is StopAction => a.op === 'stop');

test('a replica with the same spec on a healthy, uncordoned node is kept: no changes', () => {
  const fleet = makeFleet({
    nodes: [{ name: 'a1' }],
    replicas: [oneRank('m-0', 'a1', [0, 1], { state: 'starting' })],
    models: [{ name: 'm', gpus: 2 }],
  });
  const plan = planFleet(fleet, emptyState());
  assert.equal(plan, { version: 1, changes: false, blocked: null, actions: [], unplaceable: [] });
});

test('a replica of a model no longer in models.yaml is stopped without waiting and frees its GPUs', () => {
  const fleet = makeFleet({
    nodes: [{ name: 'a1' }],
    replicas: [oneRank('old-0', 'a1', [0, 1, 2, 3, 4, 5, 6, 7])],
    models: [{ name: 'm', gpus: 8 }],
  });
  const plan = planFleet(fleet, emptyState());
  assert.equal(plan.actions.map(brief), ['stop old-0 (not in models.yaml) after []', 'start m-0 a1']);
  assert.equal(stops(plan.actions)[0]!.placement, [{ node: 'a1', gpus: [0, 1, 2, 3, 4, 5, 6, 7] }]);
});

test('a failed replica is stopped without waiting, its GPUs are free, and it is replaced', () => {
  const fleet = makeFleet({
    nodes: [{ name: 'a1', gpus: 4 }],
    replicas: [oneRank('m-0', 'a1', [0, 1, 2, 3], { state: 'failed' })],
    models: [{ name: 'm', gpus: 4 }],
  });
  const plan = planFleet(fleet, emptyState());
  assert.equal(plan.actions.map(brief), ['stop m-0 (failed) after []', 'start m-1 a1']);
  assert.equal(starts(plan.actions)[0]!.reason, '1 of 1 replica missing');
});

test('scale-down removes the idlest known replica first; unknown idleness counts as just used', () => {
  const fleet = makeFleet({
    nodes: [{ name: 'a1' }],
    replicas: [
      oneRank('m-0', 'a1', [0], { idleSeconds: 600 }),
      oneRank('m-1', 'a1', [1], { idleSeconds: null }),
      oneRank('m-2', 'a1', [2], { idleSeconds: 7200 }),
      oneRank('m-3', 'a1', [3], { idleSeconds: 0 }),
    ],
    models: [{ name: 'm', replicas: 2 }],
  });
  const plan = planFleet(fleet, emptyState());
  assert.equal(plan.actions.map(brief), ['stop m-0 (surplus (4 of 2)) after []', 'stop m-2 (surplus (4 of 2)) after []']);
});

test('scale-down with no known idleness stops the highest n first', () => {
  const fleet = makeFleet({
    nodes: [{ name: 'a1' }],
    replicas: [oneRank('m-2', 'a1', [0]), oneRank('m-10', 'a1', [1]), oneRank('m-9', 'a1', [2])],
    models: [{ name: 'm', replicas: 1 }],
  });
  assert.equal(
    stops(planFleet(fleet, emptyState()).actions).map((s) => s.replica),
    ['m-10', 'm-9'],
  );
});

test('replicas: 0 keeps the entry and stops every replica as surplus', () => {
  const fleet = makeFleet({
    nodes: [{ name: 'a1' }],
    replicas: [oneRank('m-0', 'a1', [0])],
    models: [{ name: 'm', replicas: 0 }],
  });
  assert.equal(planFleet(fleet, emptyState()).actions.map(brief), ['stop m-0 (surplus (1 of 0)) after []']);
});

test('a replica reporting no spec is judged by its shape and never rolled blindly', () => {
  const same = makeFleet({
    nodes: [{ name: 'a1' }],
    replicas: [oneRank('m-0', 'a1', [0, 1, 2, 3], { spec: null })],
    models: [{ name: 'm', gpus: 4 }],
  });
  assert.is(planFleet(same, emptyState()).changes, false);
  const reshaped = makeFleet({
    nodes: [{ name: 'a1' }],
    replicas: [oneRank('m-0', 'a1', [0, 1], { spec: null })],
    models: [{ name: 'm', gpus: 4 }],
  });
  assert.equal(planFleet(reshaped, emptyState()).actions.map(brief), ['start m-1 a1', 'stop m-0 (spec changed) after [m-1]']);
});

test("an unreachable node's replicas are left alone until it is lost, and count toward replicas", () => {
  const fleet = makeFleet({
    nodes: [{ name: 'a1', condition: 'unreachable' }, { name: 'a2' }],
    replicas: [oneRank('m-0', 'a1', [0], { spec: 'oldspec' }), oneRank('gone-0', 'a1', [1])],
    models: [{ name: 'm' }],
  });
  const plan = planFleet(fleet, emptyState());
  assert.equal(plan.actions, []);
});

test('a lost node: its replicas are placed again, ranks on reachable nodes stopped, ids stay taken', () => {
  const fleet = makeFleet({
    nodes: [{ name: 'a1', condition: 'lost' }, { name: 'a2' }, { name: 'a3' }, { name: 'a4' }],
    replicas: [
      {
        id: 'ds-0',
        model: 'ds',
        ranks: [
          { node: 'a1', gpus: [0, 1, 2, 3, 4, 5, 6, 7] },
          { node: 'a2', gpus: [0, 1, 2, 3, 4, 5, 6, 7] },
        ],
      },
    ],
    models: [{ name: 'ds', gpus: 8, nodes: 2 }],
  });
  const plan = planFleet(fleet, emptyState());
  assert.equal(plan.actions.map(brief), ['stop ds-0 (node lost) after []', 'start ds-1 a2+a3']);
  // Only the surviving rank is stopped: the lost node cannot be told anything.
  assert.equal(stops(plan.actions)[0]!.placement, [{ node: 'a2', gpus: [0, 1, 2, 3, 4, 5, 6, 7] }]);
});

test('a replica whose ranks are all on lost nodes needs no stop, and its id is not reused', () => {
  const fleet = makeFleet({
    nodes: [{ name: 'a1', condition: 'lost' }, { name: 'a2' }],
    replicas: [oneRank('m-0', 'a1', [0])],
    models: [{ name: 'm' }],
  });
  assert.equal(planFleet(fleet, emptyState()).actions.map(brief), ['start m-1 a2']);
});

test('a lost node that comes back with its old rank: that replica is surplus, not the replacement', () => {
  const fleet = makeFleet({
    nodes: [{ name: 'a1' }, { name: 'a2' }, { name: 'a3' }, { name: 'a4' }],
    replicas: [
      // ds-0's rank on a2 was stopped while a1 was lost; a1 is back with its rank.
      { id: 'ds-0', model: 'ds', ranks: wholeNodes('a1') },
      { id: 'ds-1', model: 'ds', ranks: wholeNodes('a3', 'a4') },
    ],
    models: [{ name: 'ds', gpus: 8, nodes: 2 }],
  });
  assert.equal(planFleet(fleet, emptyState()).actions.map(brief), ['stop ds-0 (surplus (2 of 1)) after []']);
});

test('a multi-node replica with ranks missing is stopped and placed again even when not surplus', () => {
  const fleet = makeFleet({
    nodes: [{ name: 'a1' }, { name: 'a2' }, { name: 'a3' }],
    replicas: [{ id: 'ds-0', model: 'ds', ranks: wholeNodes('a1') }],
    models: [{ name: 'ds', gpus: 8, nodes: 2 }],
  });
  assert.equal(planFleet(fleet, emptyState()).actions.map(brief), ['stop ds-0 (incomplete (ranks on 1 of 2 nodes)) after []', 'start ds-1 a1+a2']);
});

test.run();
