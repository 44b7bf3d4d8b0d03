// Replica ids (src/plan/replica-ids.ts): `<model>-<n>` with n a plain decimal
// (no sign, no leading zero); a new id takes the lowest n no replica holds;
// ids of another form sort after every numbered one, by name; and the surplus
// goes by known idleness, then highest n, then name.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { byReplicaNumber, compareNames, idAllocator, replicaNumber } from '../../src/plan/replica-ids.js';
import { surplusOrder } from '../../src/plan/surplus.js';
import { planFleet } from '../../src/plan/plan-fleet.js';
import { emptyState } from '../../src/types/state.js';
import type { FleetReplica } from '../../src/types/fleet.js';
import { makeFleet } from '../fixtures/index.js';

test('replicaNumber: the n of <model>-<n>, -1 for any other form', () => {
  const cases: [string, string, number][] = [
    ['m-0', 'm', 0],
    ['m-7', 'm', 7],
    ['m-10', 'm', 10],
    ['llama-3-1', 'llama-3', 1],
    ['m-01', 'm', -1],
    ['m-00', 'm', -1],
    ['m--1', 'm', -1],
    ['m-+1', 'm', -1],
    ['m-1x', 'm', -1],
    ['m-x1', 'm', -1],
    ['m-', 'm', -1],
    ['m-1.5', 'm', -1],
    ['mm-1', 'm', -1],
    ['m1', 'm', -1],
    ['mx1', 'm', -1],
    ['m_7', 'm', -1],
    ['m', 'm', -1],
    ['n-1', 'm', -1],
  ];
  assert.equal(
    cases.map(([id, model]) => replicaNumber(id, model)),
    cases.map(([, , n]) => n),
  );
});

test('idAllocator: the lowest free n per model, never one handed out or taken, each model counted apart', () => {
  const next = idAllocator(['m-0', 'm-2', 'o-1', 'm-hand']);
  assert.equal([next('m'), next('m'), next('m'), next('o'), next('o'), next('p')], ['m-1', 'm-3', 'm-4', 'o-0', 'o-2', 'p-0']);
});

test('byReplicaNumber: by n, ids of another form after every numbered one, those by name', () => {
  const ids = ['m-hand', 'm-10', 'm-01', 'm-2', 'm-9', 'm-0'];
  assert.equal([...ids].sort(byReplicaNumber('m')), ['m-0', 'm-2', 'm-9', 'm-10', 'm-01', 'm-hand']);
  assert.is(byReplicaNumber('m')('m-3', 'm-3'), 0);
});

test('compareNames: plain code units, equal names tie', () => {
  assert.equal(
    [compareNames('a', 'b'), compareNames('b', 'a'), compareNames('a', 'a'), compareNames('B', 'a'), compareNames('a-10', 'a-9')],
    [-1, 1, 0, -1, -1],
  );
});

const rep = (id: string, idleSeconds: number | null): FleetReplica => ({ id, idleSeconds }) as FleetReplica;

test('surplusOrder: longest known idleness first, unknown as 0, then highest n, then ids of another form by name descending', () => {
  const list = [rep('m-1', null), rep('m-a', 5), rep('m-b', 5), rep('m-3', 0), rep('m-2', 60), rep('m-4', null), rep('m-c', null)];
  assert.equal(
    list.sort(surplusOrder('m')).map((r) => r.id),
    ['m-2', 'm-b', 'm-a', 'm-4', 'm-3', 'm-1', 'm-c'],
  );
  assert.is(surplusOrder('m')(rep('m-1', 3), rep('m-1', 3)), 0);
});

test('scale-down among ids of another form: the numbered one goes first, then the higher name', () => {
  const fleet = makeFleet({
    nodes: [{ name: 'a1' }],
    replicas: ['m-01', 'm-hand', 'm-1'].map((id, i) => ({ id, model: 'm', ranks: [{ node: 'a1', gpus: [i] }] })),
    models: [{ name: 'm', replicas: 1 }],
  });
  assert.equal(
    planFleet(fleet, emptyState()).actions.map((a) => `${a.op} ${a.replica} ${a.op === 'stop' ? a.reason : ''}`),
    ['stop m-1 surplus (3 of 1)', 'stop m-hand surplus (3 of 1)'],
  );
});

test.run();
