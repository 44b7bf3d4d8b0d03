// The surplus order (docs/placement.md step 2): replicas on a node that was
// unreachable or lost within the last lostAfter first, then those sharing a
// node with another replica of the model, then the longest unused.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { planFleet } from '../../src/plan/plan-fleet.js';
import { emptyState, type State } from '../../src/types/state.js';
import { makeFleet, type FleetIn, oneRank } from '../fixtures/fleet.js';
import { NOW } from '../fixtures/now.js';

function stopped(input: FleetIn, state: State = emptyState()): string[] {
  return planFleet(makeFleet(input), state)
    .actions.filter((a) => a.op === 'stop')
    .map((a) => a.replica);
}

const minutesAgo = (m: number) => new Date(Date.parse(NOW) - m * 60_000).toISOString();

// m-0 on a1 has been unused longer (by a hair): the idleness rule alone would stop it.
const RETURNED: FleetIn = {
  nodes: [{ name: 'a1' }, { name: 'a2' }],
  replicas: [oneRank('m-0', 'a1', [0], { idleSeconds: 61 }), oneRank('m-1', 'a2', [0], { idleSeconds: 60 })],
  models: [{ name: 'm', replicas: 1 }],
};

test('a node that was lost and answers again: its replica is the surplus stopped, not the one that never left', () => {
  // state.json still has a2's outage open: this is the tick that sees it back.
  const state = { ...emptyState(), unreachableSince: { a2: minutesAgo(30) } };
  assert.equal(stopped(RETURNED, state), ['m-1']);
});

test('an outage that ended less than lostAfter ago counts; one that ended longer ago does not', () => {
  assert.equal(stopped(RETURNED, { ...emptyState(), outageEnded: { a2: minutesAgo(9) } }), ['m-1']);
  assert.equal(stopped(RETURNED, { ...emptyState(), outageEnded: { a2: minutesAgo(10) } }), ['m-0']);
  assert.equal(stopped(RETURNED), ['m-0']);
});

test('then a replica sharing a node with another of its model, before the longest unused', () => {
  const out = stopped({
    nodes: [{ name: 'a1' }, { name: 'a2' }],
    replicas: [
      oneRank('m-0', 'a1', [0], { idleSeconds: 10 }),
      oneRank('m-1', 'a1', [1], { idleSeconds: 20 }),
      oneRank('m-2', 'a2', [0], { idleSeconds: 9000 }),
    ],
    models: [{ name: 'm', replicas: 2 }],
  });
  assert.equal(out, ['m-1']);
});

test('chosen one at a time: two pairs shrinking to two keep one on each node', () => {
  const out = stopped({
    nodes: [{ name: 'a1' }, { name: 'a2' }],
    replicas: [oneRank('m-0', 'a1', [0]), oneRank('m-1', 'a1', [1]), oneRank('m-2', 'a2', [0]), oneRank('m-3', 'a2', [1])],
    models: [{ name: 'm', replicas: 2 }],
  });
  // m-3 first (highest n of the shared); m-2 is then alone on a2, so m-1 goes next.
  assert.equal(out, ['m-1', 'm-3']);
});

test('recently back beats sharing: the returned node goes first even when its replica is alone there', () => {
  const out = stopped(
    {
      nodes: [{ name: 'a1' }, { name: 'a2' }],
      replicas: [oneRank('m-0', 'a1', [0]), oneRank('m-1', 'a1', [1]), oneRank('m-2', 'a2', [0])],
      models: [{ name: 'm', replicas: 2 }],
    },
    { ...emptyState(), outageEnded: { a2: minutesAgo(1) } },
  );
  assert.equal(out, ['m-2']);
});

test.run();
