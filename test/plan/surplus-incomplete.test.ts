// Surplus and multi-node replicas with ranks missing (src/plan/surplus.ts):
// an incomplete replica goes first when there is surplus, and is stopped even
// when there is none; a complete one is never stopped for being beside it.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { planFleet } from '../../src/plan/plan-fleet.js';
import { emptyState } from '../../src/types/state.js';
import type { Fleet } from '../../src/types/fleet.js';
import { makeFleet } from '../fixtures/index.js';

const FULL = [0, 1, 2, 3, 4, 5, 6, 7];
const brief = (f: Fleet) =>
  planFleet(f, emptyState()).actions.map((a) => `${a.op} ${a.replica}${a.op === 'stop' ? ` (${a.reason})` : ''} ${a.placement.map((p) => p.node).join('+')}`);

test('no surplus: of a complete and an incomplete replica, only the incomplete one is stopped (and placed again)', () => {
  const f = makeFleet({
    nodes: ['a1', 'a2', 'a3', 'a4', 'a5'].map((name) => ({ name })),
    replicas: [
      {
        id: 'ds-0',
        model: 'ds',
        ranks: [
          { node: 'a1', gpus: FULL },
          { node: 'a2', gpus: FULL },
        ],
      },
      { id: 'ds-1', model: 'ds', ranks: [{ node: 'a3', gpus: FULL }] },
    ],
    models: [{ name: 'ds', gpus: 8, nodes: 2, replicas: 2 }],
  });
  assert.equal(brief(f), ['stop ds-1 (incomplete (ranks on 1 of 2 nodes)) a3', 'start ds-2 a3+a4']);
});

test('surplus of one: the incomplete replica is the one stopped, even listed after the complete one; the complete one stays', () => {
  const f = makeFleet({
    nodes: ['a1', 'a2', 'a3'].map((name) => ({ name })),
    replicas: [
      {
        id: 'ds-0',
        model: 'ds',
        ranks: [
          { node: 'a1', gpus: FULL },
          { node: 'a2', gpus: FULL },
        ],
      },
      { id: 'ds-1', model: 'ds', ranks: [{ node: 'a3', gpus: FULL }] },
    ],
    models: [{ name: 'ds', gpus: 8, nodes: 2, replicas: 1 }],
  });
  assert.equal(brief(f), ['stop ds-1 (surplus (2 of 1)) a3']);
});

test('surplus of one with the incomplete replica holding the lower id: it still goes first, not the complete ds-1', () => {
  const f = makeFleet({
    nodes: ['a1', 'a2', 'a3'].map((name) => ({ name })),
    replicas: [
      { id: 'ds-0', model: 'ds', ranks: [{ node: 'a3', gpus: FULL }] },
      {
        id: 'ds-1',
        model: 'ds',
        ranks: [
          { node: 'a1', gpus: FULL },
          { node: 'a2', gpus: FULL },
        ],
      },
    ],
    models: [{ name: 'ds', gpus: 8, nodes: 2, replicas: 1 }],
  });
  assert.equal(brief(f), ['stop ds-0 (surplus (2 of 1)) a3']);
});

test('two incomplete replicas and one complete, two surplus: both incomplete go, by the surplus order among them', () => {
  const f = makeFleet({
    nodes: ['a1', 'a2', 'a3', 'a4'].map((name) => ({ name })),
    replicas: [
      { id: 'ds-0', model: 'ds', ranks: [{ node: 'a3', gpus: FULL }] },
      {
        id: 'ds-1',
        model: 'ds',
        ranks: [
          { node: 'a1', gpus: FULL },
          { node: 'a2', gpus: FULL },
        ],
      },
      { id: 'ds-2', model: 'ds', ranks: [{ node: 'a4', gpus: FULL }] },
    ],
    models: [{ name: 'ds', gpus: 8, nodes: 2, replicas: 1 }],
  });
  assert.equal(brief(f), ['stop ds-0 (surplus (3 of 1)) a3', 'stop ds-2 (surplus (3 of 1)) a4']);
});

test.run();
