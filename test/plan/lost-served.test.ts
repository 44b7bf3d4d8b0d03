// Lost means "replace", not "cut" (docs/placement.md#5-lost): a lost node's replica that the
// routers still report served (listed, not ejected) keeps its surviving ranks
// until its replacement runs: the replacement starts first (surge) and the stop
// waits for it. One the routers eject, or do not list, is stopped at once as before.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { servedByRouters } from '../../src/fleet/routes.js';
import { planFleet } from '../../src/plan/plan-fleet.js';
import type { Fleet } from '../../src/types/fleet.js';
import type { RouterObservation } from '../../src/types/snapshot.js';
import { emptyState } from '../../src/types/state.js';
import { brief, makeFleet } from '../fixtures/index.js';

const GPUS = [0, 1, 2, 3, 4, 5, 6, 7];

function router(name: string, listed: string[], ejected: string[] = []): RouterObservation {
  return {
    name,
    reachable: true,
    report: {
      version: 1,
      startedAt: '2026-11-29T07:00:00Z',
      lastUsed: {},
      table: { ds: listed.map((id) => ({ replica: id, url: 'http://a1.example:8000' })) },
      ejected: Object.fromEntries(
        ejected.map((id) => [id, { since: '2026-11-29T07:59:00Z', until: '2026-11-29T08:00:30Z', reason: 'errors' as const, count: 1 }]),
      ),
    },
  };
}

function lostPair(nodes: string[], routers: RouterObservation[]): Fleet {
  const f = makeFleet({
    nodes: nodes.map((name, i) => (i === 0 ? { name, condition: 'lost' as const } : { name })),
    replicas: [
      {
        id: 'ds-0',
        model: 'ds',
        ranks: [
          { node: 'a1', gpus: GPUS },
          { node: 'a2', gpus: GPUS },
        ],
      },
    ],
    models: [{ name: 'ds', gpus: 8, nodes: 2 }],
  });
  return { ...f, routers };
}

test('served by the routers: listed by one that answered and ejected by none that lists it', () => {
  assert.is(servedByRouters('ds-0', 'ds', [router('rt-1', ['ds-0']), router('rt-2', [])]), true);
  assert.is(servedByRouters('ds-0', 'ds', [router('rt-1', ['ds-0']), router('rt-2', ['ds-0'], ['ds-0'])]), false);
  assert.is(servedByRouters('ds-0', 'ds', [router('rt-1', [])]), false);
  assert.is(servedByRouters('ds-0', 'ds', [{ name: 'rt-1', reachable: false, error: 'timeout' }]), false);
  assert.is(servedByRouters('ds-0', 'ds', []), false);
});

test('a lost multi-node replica the routers still serve: its replacement starts elsewhere first, its surviving rank stops once that runs', () => {
  const plan = planFleet(lostPair(['a1', 'a2', 'a3', 'a4'], [router('rt-1', ['ds-0'])]), emptyState());
  assert.equal(plan.actions.map(brief), ['start ds-1 a3+a4', 'stop ds-0 (node lost) after [ds-1]']);
});

test('ejected by a router that lists it, or listed by none: stopped at once, its GPUs room for the replacement (as before)', () => {
  for (const routers of [[router('rt-1', ['ds-0'], ['ds-0'])], [router('rt-1', [])], []]) {
    const plan = planFleet(lostPair(['a1', 'a2', 'a3', 'a4'], routers), emptyState());
    assert.equal(plan.actions.map(brief), ['stop ds-0 (node lost) after []', 'start ds-1 a2+a3']);
  }
});

test('served, but no room for a surge: the surviving rank stops now, its GPUs are the room', () => {
  const plan = planFleet(lostPair(['a1', 'a2', 'a3'], [router('rt-1', ['ds-0'])]), emptyState());
  assert.equal(plan.actions.map(brief), ['stop ds-0 (node lost) after []']);
});

test.run();
