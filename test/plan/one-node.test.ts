import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { planFleet } from '../../src/plan/plan-fleet.js';
import type { StartAction } from '../../src/types/plan.js';
import { emptyState, type State } from '../../src/types/state.js';
import { makeFleet, NOW, oneRank, startOf, type ModelIn } from '../fixtures/index.js';

const starts = (plan: ReturnType<typeof planFleet>) => plan.actions.filter((a): a is StartAction => a.op === 'start');
const where = (s: StartAction) => s.placement.map((p) => `${p.node}[${p.gpus.join(',')}]`).join(' ');

test('a missing replica starts with the reason "1 of 2 replicas missing" and the lowest free id', () => {
  const fleet = makeFleet({
    nodes: [{ name: 'a1' }, { name: 'a2' }],
    replicas: [oneRank('m-0', 'a1', [0, 1, 2, 3])],
    models: [{ name: 'm', gpus: 4, replicas: 2 }],
  });
  const plan = planFleet(fleet, emptyState());
  assert.equal(plan.actions, [startOf('m-1', [{ node: 'a2', gpus: [0, 1, 2, 3] }], '1 of 2 replicas missing')]);
  assert.is(plan.changes, true);
  assert.is(plan.blocked, null);
});

test('spread: a second replica goes to a node without one of the same model, before best fit', () => {
  const fleet = makeFleet({
    nodes: [{ name: 'a1' }, { name: 'a2' }],
    replicas: [oneRank('m-0', 'a1', [0, 1])],
    models: [{ name: 'm', gpus: 2, replicas: 2 }],
  });
  // Best fit alone would pick a1 (6 free -> 4 left), spread picks a2.
  assert.is(where(starts(planFleet(fleet, emptyState()))[0]!), 'a2[0,1]');
});

test('best fit: the node left with the fewest free GPUs wins among equals', () => {
  // x-0 takes 5 GPUs of a2, x-1 2 of a3; a1 is empty.
  const xFleet = (models: ModelIn[]) =>
    makeFleet({
      nodes: [{ name: 'a1' }, { name: 'a2' }, { name: 'a3' }],
      replicas: [oneRank('x-0', 'a2', [0, 1, 2, 3, 4]), oneRank('x-1', 'a3', [0, 1])],
      models,
    });
  const fleet = xFleet([
    { name: 'x', gpus: 5, replicas: 0 },
    { name: 'm', gpus: 2, replicas: 1 },
  ]);
  const plan = planFleet(fleet, emptyState());
  // x's replicas are surplus (replicas: 0) and free their GPUs: everything is free again.
  assert.is(where(starts(plan)[0]!), 'a1[0,1]');
  const kept = xFleet([
    { name: 'x', gpus: 5, replicas: 1 },
    { name: 'y', gpus: 2, replicas: 1 },
  ]);
  const s = starts(planFleet(kept, emptyState()));
  // x keeps one (x-1 is surplus: highest n), y (2 GPUs) fits a2 exactly (3 free -> 1 left).
  assert.is(where(s.find((a) => a.model === 'y')!), 'a2[5,6]');
});

test('ties on every rule fall to the node name', () => {
  const fleet = makeFleet({ nodes: [{ name: 'b1' }, { name: 'a9' }, { name: 'a10' }], models: [{ name: 'm', gpus: 8 }] });
  assert.is(where(starts(planFleet(fleet, emptyState()))[0]!), 'a10[0,1,2,3,4,5,6,7]');
});

test('weights tier: a holding node beats its fabric, which beats neither', () => {
  const fleet = makeFleet({
    nodes: [
      { name: 'a1', fabric: 'ib-a' },
      { name: 'b1', fabric: 'ib-b' },
      { name: 'b2', fabric: 'ib-b', holds: ['org/m'] },
    ],
    models: [{ name: 'm', gpus: 8, replicas: 3 }],
  });
  const s = starts(planFleet(fleet, emptyState()));
  assert.equal(
    s.map((a) => [a.placement[0]!.node, a.weights]),
    [
      ['b2', 'node'],
      ['b1', 'fabric'],
      ['a1', 'none'],
    ],
  );
});

test('a local copy does not make a fabric-mate a holder: the mate ranks as fabric, below the holder', () => {
  const fleet = makeFleet({
    nodes: [{ name: 'a1' }, { name: 'a2', holds: ['org/m'] }],
    replicas: [oneRank('x-0', 'a2', [0, 1, 2, 3, 4, 5])],
    models: [
      { name: 'x', gpus: 6 },
      { name: 'm', gpus: 2 },
    ],
  });
  // Best fit would prefer neither; a2 holds, a1 only via its fabric.
  const s = starts(planFleet(fleet, emptyState()))[0]!;
  assert.equal([s.placement[0]!.node, s.weights], ['a2', 'node']);
  const mate = makeFleet({ nodes: [{ name: 'a1' }, { name: 'a2', holds: ['org/m'] }], models: [{ name: 'm', gpus: 8, replicas: 2 }] });
  assert.equal(
    starts(planFleet(mate, emptyState())).map((a) => a.weights),
    ['node', 'fabric'],
  );
});

test('a node never told to look ranks exactly like one that looked and found nothing', () => {
  // Both hold nothing (one was told no storage paths at all): the name decides.
  const fleet = makeFleet({ nodes: [{ name: 'a2', holds: [] }, { name: 'a1' }], models: [{ name: 'm', gpus: 8 }] });
  const s = starts(planFleet(fleet, emptyState()))[0]!;
  assert.equal([s.placement[0]!.node, s.weights], ['a1', 'none']);
});

test('unhealthy GPUs are never chosen, and the lowest free healthy indices are taken', () => {
  const fleet = makeFleet({ nodes: [{ name: 'a1', unhealthy: [0, 2] }], models: [{ name: 'm', gpus: 3 }] });
  assert.is(where(starts(planFleet(fleet, emptyState()))[0]!), 'a1[1,3,4]');
  const full = makeFleet({ nodes: [{ name: 'a1', unhealthy: [0, 1, 2] }], models: [{ name: 'm', gpus: 6 }] });
  const plan = planFleet(full, emptyState());
  assert.is(starts(plan).length, 0);
  assert.equal(plan.unplaceable, [{ model: 'm', missing: 1, reason: 'needs 6 free GPUs on one node; most free on one node: ib-a 5' }]);
});

test('cordoned and unreachable nodes take nothing new', () => {
  const fleet = makeFleet({
    nodes: [
      { name: 'a1', cordon: true },
      { name: 'a2', condition: 'unreachable' },
      { name: 'a3', gpus: 2 },
    ],
    models: [{ name: 'm', gpus: 4 }],
  });
  const plan = planFleet(fleet, emptyState());
  assert.is(plan.actions.length, 0);
  assert.is(plan.unplaceable[0]!.reason, 'needs 4 free GPUs on one node; most free on one node: ib-a 2');
});

test('gpuClass is respected: a mixed node offers each class only its own GPUs', () => {
  const fleet = makeFleet({
    nodes: [{ name: 'a1', classes: ['A100', 'A100', 'H100', 'H100', 'H100', 'A100', 'H100', 'A100'] }],
    models: [
      { name: 'm', gpus: 4, gpuClass: 'H100' },
      { name: 'n', gpus: 4, gpuClass: 'A100' },
    ],
  });
  const s = starts(planFleet(fleet, emptyState()));
  assert.equal(s.map(where), ['a1[2,3,4,6]', 'a1[0,1,5,7]']);
});

test('a class no reachable node has is unplaceable and says so', () => {
  const fleet = makeFleet({ nodes: [{ name: 'a1' }], models: [{ name: 'm', gpus: 1, gpuClass: 'B200', replicas: 2 }] });
  assert.equal(planFleet(fleet, emptyState()).unplaceable, [
    {
      model: 'm',
      missing: 2,
      reason: 'needs 1 free B200 GPU on one node; most free on one node: ib-a 0 (no reachable node has B200 GPUs)',
    },
  ]);
});

test('a recent start failure steers away for 30 minutes only, and is a preference, not a filter', () => {
  const nodes = [{ name: 'a1', holds: ['org/m'] }, { name: 'a2' }];
  const failedAt = (minutesAgo: number): State => ({
    ...emptyState(),
    startFailures: [{ model: 'm', node: 'a1', replica: 'm-0', at: new Date(Date.parse(NOW) - minutesAgo * 60_000).toISOString(), error: 'x' }],
  });
  const fleet = makeFleet({ nodes, models: [{ name: 'm', gpus: 8 }] });
  assert.is(starts(planFleet(fleet, failedAt(29)))[0]!.placement[0]!.node, 'a2');
  assert.is(starts(planFleet(fleet, failedAt(30)))[0]!.placement[0]!.node, 'a1');
  // Another model is not steered by m's failure.
  const other: State = { ...failedAt(1), startFailures: [{ ...failedAt(1).startFailures[0]!, model: 'z' }] };
  assert.is(starts(planFleet(fleet, other))[0]!.placement[0]!.node, 'a1');
  // The only node with room is still used.
  const one = makeFleet({ nodes: [{ name: 'a1' }], models: [{ name: 'm', gpus: 8 }] });
  assert.is(starts(planFleet(one, failedAt(1)))[0]!.placement[0]!.node, 'a1');
});

test('models are placed by priority, then size, then models.yaml order, all of one model first', () => {
  const fleet = makeFleet({
    nodes: [
      { name: 'a1', gpus: 4 },
      { name: 'a2', gpus: 4 },
      { name: 'a3', gpus: 4 },
    ],
    models: [
      { name: 'small-first', gpus: 1, replicas: 2 },
      { name: 'big', gpus: 4, replicas: 2 },
      { name: 'small-second', gpus: 1, replicas: 1 },
      { name: 'urgent', gpus: 1, replicas: 1, priority: 5 },
    ],
  });
  const s = starts(planFleet(fleet, emptyState()));
  assert.equal(
    s.map((a) => a.replica),
    ['urgent-0', 'big-0', 'big-1', 'small-first-0', 'small-first-1', 'small-second-0'],
  );
  assert.equal(s.map(where), ['a1[0]', 'a2[0,1,2,3]', 'a3[0,1,2,3]', 'a1[1]', 'a1[2]', 'a1[3]']);
});

test('when capacity is short the higher priority wins and the other is unplaceable with its count', () => {
  const fleet = makeFleet({
    nodes: [{ name: 'a1', gpus: 8 }],
    models: [
      { name: 'low', gpus: 4, replicas: 2 },
      { name: 'high', gpus: 4, replicas: 1, priority: 1 },
    ],
  });
  const plan = planFleet(fleet, emptyState());
  assert.equal(
    starts(plan).map((a) => a.replica),
    ['high-0', 'low-0'],
  );
  assert.equal(plan.unplaceable, [{ model: 'low', missing: 1, reason: 'needs 4 free GPUs on one node; most free on one node: ib-a 0' }]);
});

test('ports: the lowest port from basePort free on the node', () => {
  const fleet = makeFleet({
    nodes: [{ name: 'a1' }],
    replicas: [oneRank('x-0', 'a1', [0], { port: 8000 }), oneRank('x-1', 'a1', [1], { port: 8002 })],
    models: [
      { name: 'x', gpus: 1, replicas: 2 },
      { name: 'm', gpus: 1, replicas: 2 },
    ],
  });
  assert.equal(
    starts(planFleet(fleet, emptyState())).map((a) => a.port),
    [8001, 8003],
  );
});

test.run();
