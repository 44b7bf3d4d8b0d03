// The fleet model's drain marks (src/fleet/lifecycle.ts): a replica whose stop has
// begun is marked draining from state.json, because its node reports it the same
// before and after it left the routers' tables.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildFleet, drainMarkOf, withDrainMarks } from '../../src/fleet/index.js';
import type { Fleet } from '../../src/types/fleet.js';
import { emptyState, type DrainEntry, type State } from '../../src/types/state.js';
import { NOW, config, gpus, nodeConfig, replica, report, snapshot, up } from '../fixtures/index.js';

const SINCE = '2026-11-29T07:50:00Z';
const OUT = '2026-11-29T07:51:00Z';

function stateDraining(draining: Record<string, DrainEntry>): State {
  return { ...emptyState(), lifecycle: { draining, rollouts: {} } };
}

/** Three running replicas on one node, as a tick without drains sees them. */
function fleet(state: State = emptyState()): Fleet {
  const c = config([nodeConfig('n1')]);
  return buildFleet(c, snapshot([up('n1', report(gpus(3), [replica('a-0', [0]), replica('b-0', [1]), replica('c-0', [2])]))]), state, NOW);
}

test('drainMarkOf: no lifecycle in state.json (an older state) means no replica drains', () => {
  const markOf = drainMarkOf(emptyState());
  assert.is(markOf('a-0'), null);
});

test('drainMarkOf: a recorded drain is the mark; a drain not yet out of every table has outOfTablesAt null', () => {
  const markOf = drainMarkOf(
    stateDraining({
      'a-0': { since: SINCE, reason: 'surplus', outOfTablesAt: OUT },
      'b-0': { since: SINCE, reason: 'replaced' } as DrainEntry,
    }),
  );
  assert.equal(markOf('a-0'), { since: SINCE, reason: 'surplus', outOfTablesAt: OUT });
  assert.equal(markOf('b-0'), { since: SINCE, reason: 'replaced', outOfTablesAt: null });
  assert.is(markOf('c-0'), null);
});

test('drainMarkOf: an id that names an Object.prototype member is not a drain', () => {
  const markOf = drainMarkOf(stateDraining({}));
  assert.is(markOf('toString'), null);
  assert.is(markOf('__proto__'), null);
});

test('buildFleet marks each replica from state.json: the draining one, and null for the rest', () => {
  const f = fleet(stateDraining({ 'b-0': { since: SINCE, reason: 'surplus', outOfTablesAt: null } }));
  assert.equal(
    f.replicas.map((r) => [r.id, r.draining]),
    [
      ['a-0', null],
      ['b-0', { since: SINCE, reason: 'surplus', outOfTablesAt: null }],
      ['c-0', null],
    ],
  );
});

test('withDrainMarks: nothing differs (no drains, marks absent or null) -> the very same fleet object', () => {
  const f = fleet();
  assert.ok(withDrainMarks(f, emptyState()) === f);
  // A replica whose mark was never set (undefined) is the same as one marked null.
  const unset: Fleet = { ...f, replicas: f.replicas.map(({ draining: _d, ...r }) => r) };
  assert.ok(withDrainMarks(unset, stateDraining({})) === unset);
});

test('withDrainMarks: equal marks in new objects are the same -> the very same fleet object', () => {
  const f = fleet(stateDraining({ 'b-0': { since: SINCE, reason: 'surplus', outOfTablesAt: OUT } }));
  assert.ok(withDrainMarks(f, stateDraining({ 'b-0': { since: SINCE, reason: 'surplus', outOfTablesAt: OUT } })) === f);
});

test('withDrainMarks: a drain begun this tick marks that replica only, in replicas and in replicaById', () => {
  const f = fleet();
  const g = withDrainMarks(f, stateDraining({ 'c-0': { since: NOW, reason: 'surplus', outOfTablesAt: null } }));
  assert.ok(g !== f);
  assert.equal(
    g.replicas.map((r) => r.id),
    ['a-0', 'b-0', 'c-0'],
  );
  assert.equal(g.replicaById.get('c-0')!.draining, { since: NOW, reason: 'surplus', outOfTablesAt: null });
  assert.ok(g.replicaById.get('c-0') === g.replicas[2]);
  assert.equal([...g.replicaById.keys()], ['a-0', 'b-0', 'c-0']);
  // The unmarked replicas are untouched objects; the rest of the fleet is kept.
  assert.ok(g.replicas[0] === f.replicas[0] && g.replicas[1] === f.replicas[1]);
  assert.ok(g.config === f.config && g.nodes === f.nodes && g.nodeByName === f.nodeByName);
  assert.is(g.now, f.now);
  // The fleet it came from is not changed.
  assert.is(f.replicaById.get('c-0')!.draining, null);
  assert.equal(g.replicaById.get('c-0')!.ranks, f.replicaById.get('c-0')!.ranks);
});

test('withDrainMarks: a drain that ended (its replica stopped or kept) clears the mark', () => {
  const f = fleet(stateDraining({ 'a-0': { since: SINCE, reason: 'surplus', outOfTablesAt: null } }));
  const g = withDrainMarks(f, emptyState());
  assert.equal(
    g.replicas.map((r) => r.draining),
    [null, null, null],
  );
  assert.is(g.replicaById.get('a-0')!.draining, null);
});

test('withDrainMarks: a mark differing in since, reason or outOfTablesAt alone is replaced', () => {
  const before: DrainEntry = { since: SINCE, reason: 'surplus', outOfTablesAt: null };
  const f = fleet(stateDraining({ 'a-0': before }));
  for (const after of [
    { ...before, since: NOW },
    { ...before, reason: 'replaced' },
    { ...before, outOfTablesAt: OUT },
  ]) {
    const g = withDrainMarks(f, stateDraining({ 'a-0': after }));
    assert.ok(g !== f, JSON.stringify(after));
    assert.equal(g.replicaById.get('a-0')!.draining, after);
  }
});

test.run();
