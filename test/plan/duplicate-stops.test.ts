// The stops of duplicate copies of a replica id (src/plan/duplicate-stops.ts):
// only ranks on nodes that answer can be told to stop; a copy of an id the plan
// stops anyway joins that stop; the replica itself is never touched; and a
// duplicate's stop never counts against safety.maxStopFraction.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isDuplicateStop, withDuplicateStops } from '../../src/plan/duplicate-stops.js';
import { planFleet } from '../../src/plan/plan-fleet.js';
import { emptyState } from '../../src/types/state.js';
import type { DuplicateCopy, Fleet } from '../../src/types/fleet.js';
import type { Action, StopAction } from '../../src/types/plan.js';
import { makeFleet, type FleetIn, oneRank } from '../fixtures/index.js';

const WORLD: FleetIn = {
  nodes: [{ name: 'a1' }, { name: 'a2' }, { name: 'a3', condition: 'unreachable' }, { name: 'a4', condition: 'lost' }],
  replicas: [oneRank('m-0', 'a1', [0])],
  models: [{ name: 'm' }],
};

function withCopies(input: FleetIn, copies: DuplicateCopy[]): Fleet {
  return { ...makeFleet(input), duplicates: copies };
}

const copy = (nodes: [string, number[]][], recordNodes = ['a1']): DuplicateCopy => ({
  replica: 'm-0',
  model: 'm',
  ranks: nodes.map(([node, gpus], rank) => ({ node, rank, gpus })),
  nodes: nodes.map(([n]) => n),
  recordNodes,
});

test('a duplicate copy on a node that answers is stopped there only, named as a duplicate of its placement of record', () => {
  const fleet = withCopies(WORLD, [copy([['a2', [3, 4]]])]);
  const out = withDuplicateStops(fleet, []);
  assert.equal(out, [
    {
      op: 'stop',
      replica: 'm-0',
      model: 'm',
      placement: [{ node: 'a2', gpus: [3, 4] }],
      reason: 'duplicate: m-0 runs on a1 (its placement of record)',
      waitFor: [],
      duplicate: true,
    },
  ]);
  assert.ok(isDuplicateStop(out[0]!));
});

test("only a duplicate's ranks on reachable nodes are in its stop; none reachable means no stop yet", () => {
  const partly = withDuplicateStops(
    withCopies(WORLD, [
      copy([
        ['a3', [0]],
        ['a2', [1]],
        ['a4', [2]],
      ]),
    ]),
    [],
  );
  assert.equal(
    partly.map((a) => a.placement),
    [[{ node: 'a2', gpus: [1] }]],
  );
  const none = withDuplicateStops(
    withCopies(WORLD, [
      copy([
        ['a3', [0]],
        ['a4', [1]],
        ['gone', [2]],
      ]),
    ]),
    [],
  );
  assert.equal(none, []);
});

test('a duplicate whose placement of record answers nowhere says so, and several record nodes are listed', () => {
  const nowhere = withDuplicateStops(withCopies(WORLD, [copy([['a2', [0]]], [])]), []);
  assert.is((nowhere[0] as StopAction).reason, 'duplicate: m-0 runs on nowhere that answers (its placement of record)');
  const two = withDuplicateStops(withCopies(WORLD, [copy([['a2', [0]]], ['a1', 'a3'])]), []);
  assert.is((two[0] as StopAction).reason, 'duplicate: m-0 runs on a1, a3 (its placement of record)');
});

test("when the plan stops the replica anyway, the duplicate's nodes join that one stop: one id never has two stops", () => {
  const fleet = withCopies(WORLD, [copy([['a2', [5]]])]);
  const start: Action = {
    op: 'start',
    replica: 'm-0',
    model: 'm',
    port: 8000,
    placement: [{ node: 'a1', gpus: [0] }],
    weights: null,
    reason: 'x',
  } as unknown as Action;
  const stop: StopAction = { op: 'stop', replica: 'm-0', model: 'm', placement: [{ node: 'a1', gpus: [0] }], reason: 'surplus (2 of 1)', waitFor: ['m-1'] };
  const planned: Action[] = [start, stop];
  const out = withDuplicateStops(fleet, planned);
  assert.equal(out, [
    start,
    {
      ...stop,
      placement: [
        { node: 'a1', gpus: [0] },
        { node: 'a2', gpus: [5] },
      ],
    },
  ]);
  assert.not.ok(isDuplicateStop(out[1]!), "the merged stop is the replica's own, not a duplicate's");
  assert.equal(planned[1], stop, 'the planned actions are not changed in place');
  assert.equal(stop.placement, [{ node: 'a1', gpus: [0] }]);
});

test("the replica's own stop first in the plan takes the duplicate's nodes; another replica's stop is left as it is", () => {
  const fleet = withCopies(WORLD, [copy([['a2', [5]]])]);
  const own: StopAction = { op: 'stop', replica: 'm-0', model: 'm', placement: [{ node: 'a1', gpus: [0] }], reason: 'failed', waitFor: [] };
  const other: StopAction = { op: 'stop', replica: 'x-0', model: 'x', placement: [{ node: 'a1', gpus: [1] }], reason: 'not in models.yaml', waitFor: [] };
  assert.equal(withDuplicateStops(fleet, [own, other]), [
    {
      ...own,
      placement: [
        { node: 'a1', gpus: [0] },
        { node: 'a2', gpus: [5] },
      ],
    },
    other,
  ]);
  const alone = withDuplicateStops(fleet, [other]);
  assert.equal(
    alone.map((a) => [a.replica, a.placement.map((p) => p.node), isDuplicateStop(a)]),
    [
      ['x-0', ['a1'], false],
      ['m-0', ['a2'], true],
    ],
  );
});

test("a start of the same id is not a stop: the duplicate's stop is added beside it", () => {
  const fleet = withCopies(WORLD, [copy([['a2', [5]]])]);
  const start = { op: 'start', replica: 'm-0', model: 'm', port: 8000, placement: [], weights: null, reason: 'x' } as unknown as Action;
  const out = withDuplicateStops(fleet, [start]);
  assert.equal(
    out.map((a) => [a.op, a.replica, isDuplicateStop(a)]),
    [
      ['start', 'm-0', false],
      ['stop', 'm-0', true],
    ],
  );
});

test('the copy ranks are copied: the stop does not share GPU arrays with the fleet', () => {
  const fleet = withCopies(WORLD, [copy([['a2', [5]]])]);
  const out = withDuplicateStops(fleet, []);
  out[0]!.placement[0]!.gpus.push(6);
  assert.equal(fleet.duplicates![0]!.ranks[0]!.gpus, [5]);
});

test('isDuplicateStop: only a stop marked duplicate', () => {
  const base = { replica: 'm-0', model: 'm', placement: [], reason: 'r', waitFor: [] };
  assert.is(isDuplicateStop({ op: 'stop', ...base }), false);
  assert.is(isDuplicateStop({ op: 'stop', ...base, duplicate: true }), true);
  assert.is(isDuplicateStop({ op: 'start', duplicate: true } as unknown as Action), false);
});

test("a duplicate's stop is in the plan but never counts against maxStopFraction, and a plan of only that has changes", () => {
  const input: FleetIn = { ...WORLD, safety: { maxStopFraction: 0, minReachableFraction: 0 } };
  const plan = planFleet(withCopies(input, [copy([['a2', [1]]])]), emptyState());
  assert.equal(
    plan.actions.map((a) => [a.op, a.replica, isDuplicateStop(a)]),
    [['stop', 'm-0', true]],
  );
  assert.is(plan.blocked, null);
  assert.is(plan.changes, true);
  const quiet = planFleet(withCopies(input, []), emptyState());
  assert.equal([quiet.actions, quiet.changes], [[], false]);
});

test.run();
