// Surplus and multi-node replicas with ranks missing (src/plan/surplus.ts):
// an incomplete replica goes first when there is surplus, and is stopped even
// when there is none; a complete one is never stopped for being beside it.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { planFleet } from '../../src/plan/plan-fleet.js';
import { emptyState } from '../../src/types/state.js';
import type { Fleet } from '../../src/types/fleet.js';
import { makeFleet, wholeNodes } from '../fixtures/index.js';

const brief = (f: Fleet) =>
  planFleet(f, emptyState()).actions.map((a) => `${a.op} ${a.replica}${a.op === 'stop' ? ` (${a.reason})` : ''} ${a.placement.map((p) => p.node).join('+')}`);

/** Nodes a1..an, a model ds of two whole nodes a replica that wants `wanted` replicas, and ds replicas as `id: [nodes]`. */
function dsFleet(nodes: number, wanted: number, replicas: Record<string, string[]>): Fleet {
  return makeFleet({
    nodes: Array.from({ length: nodes }, (_, i) => ({ name: `a${i + 1}` })),
    replicas: Object.entries(replicas).map(([id, on]) => ({ id, model: 'ds', ranks: wholeNodes(...on) })),
    models: [{ name: 'ds', gpus: 8, nodes: 2, replicas: wanted }],
  });
}

test('no surplus: of a complete and an incomplete replica, only the incomplete one is stopped (and placed again)', () => {
  const f = dsFleet(5, 2, { 'ds-0': ['a1', 'a2'], 'ds-1': ['a3'] });
  assert.equal(brief(f), ['stop ds-1 (incomplete (ranks on 1 of 2 nodes)) a3', 'start ds-2 a3+a4']);
});

test('surplus of one: the incomplete replica is the one stopped, even listed after the complete one; the complete one stays', () => {
  const f = dsFleet(3, 1, { 'ds-0': ['a1', 'a2'], 'ds-1': ['a3'] });
  assert.equal(brief(f), ['stop ds-1 (surplus (2 of 1)) a3']);
});

test('surplus of one with the incomplete replica holding the lower id: it still goes first, not the complete ds-1', () => {
  const f = dsFleet(3, 1, { 'ds-0': ['a3'], 'ds-1': ['a1', 'a2'] });
  assert.equal(brief(f), ['stop ds-0 (surplus (2 of 1)) a3']);
});

test('two incomplete replicas and one complete, two surplus: both incomplete go, by the surplus order among them', () => {
  const f = dsFleet(4, 1, { 'ds-0': ['a3'], 'ds-1': ['a1', 'a2'], 'ds-2': ['a4'] });
  assert.equal(brief(f), ['stop ds-0 (surplus (3 of 1)) a3', 'stop ds-2 (surplus (3 of 1)) a4']);
});

test.run();
