// A failed start steers placement of that model away from the node for 30
// minutes (docs/placement.md): remembered until 30 minutes have passed, not at
// 30:00; per model; a time that does not parse is no failure.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FAILURE_MEMORY_MS, recentFailures } from '../../src/plan/recent-failures.js';
import { emptyState, type State } from '../../src/types/state.js';
import { NOW } from '../fixtures/now.js';

const ago = (ms: number) => new Date(Date.parse(NOW) - ms).toISOString();

function failures(list: { model: string; node: string; at: string }[]): State {
  return { ...emptyState(), startFailures: list } as State;
}

test('a failure is remembered for 30 minutes: at 29:59.999 yes, at 30:00 no', () => {
  assert.is(FAILURE_MEMORY_MS, 1_800_000);
  const state = failures([
    { model: 'm', node: 'a1', at: ago(FAILURE_MEMORY_MS - 1) },
    { model: 'm', node: 'a2', at: ago(FAILURE_MEMORY_MS) },
    { model: 'm', node: 'a3', at: ago(0) },
    { model: 'm', node: 'a4', at: ago(-60_000) },
  ]);
  assert.equal([...recentFailures(state, NOW)('m')].sort(), ['a1', 'a3', 'a4']);
});

test('failures are per model, several nodes per model; a model with none gets the empty set', () => {
  const state = failures([
    { model: 'm', node: 'a1', at: ago(1000) },
    { model: 'o', node: 'a2', at: ago(1000) },
    { model: 'm', node: 'a3', at: ago(2000) },
    { model: 'm', node: 'a1', at: ago(3000) },
  ]);
  const of = recentFailures(state, NOW);
  assert.equal([[...of('m')].sort(), [...of('o')], [...of('p')]], [['a1', 'a3'], ['a2'], []]);
});

test('a failure time that does not parse steers nothing', () => {
  const state = failures([{ model: 'm', node: 'a1', at: 'yesterday' }]);
  assert.equal([...recentFailures(state, NOW)('m')], []);
});

test.run();
