// A port something else holds fails every start given it: a start that failed
// on a node leaves its port aside there for 30 minutes, so the next start on
// that node takes the next port instead of failing the same way, and a model
// is not kept down while the next port is free (docs/placement.md#3-place-what-is-missing).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { planFleet } from '../../src/plan/plan-fleet.js';
import { FAILURE_MEMORY_MS, recentFailedPorts } from '../../src/plan/recent-failures.js';
import { startFailuresOf, recordObservedFailures } from '../../src/tick/state.js';
import type { ApplyOutcome } from '../../src/apply/outcome.js';
import type { StartAction } from '../../src/types/plan.js';
import { emptyState, type StartFailure, type State } from '../../src/types/state.js';
import { makeFleet, NOW } from '../fixtures/index.js';
import { gpus, replica, report, snapshot, up } from '../fixtures/snapshot.js';

const ago = (ms: number) => new Date(Date.parse(NOW) - ms).toISOString();
const failed = (list: Partial<StartFailure>[]): State => ({
  ...emptyState(),
  startFailures: list.map((f) => ({ model: 'm', node: 'a1', replica: 'm-0', at: ago(1000), error: 'exited', ...f })),
});
const startPorts = (state: State, nodes = ['a1', 'a2']) =>
  planFleet(makeFleet({ nodes: nodes.map((name) => ({ name })), models: [{ name: 'm', gpus: 8, replicas: nodes.length }] }), state)
    .actions.filter((a): a is StartAction => a.op === 'start')
    .map((s) => `${s.placement[0]?.node ?? ''}:${String(s.port)}`)
    .sort();

test('recentFailedPorts: per node, for 30 minutes (29:59.999 yes, 30:00 no), only failures that name a port', () => {
  const of = recentFailedPorts(
    failed([
      { node: 'a1', port: 8000, at: ago(FAILURE_MEMORY_MS - 1) },
      { node: 'a1', port: 8001, at: ago(FAILURE_MEMORY_MS) },
      { node: 'a2', port: 8002 },
      { node: 'a2' },
    ]),
    NOW,
  );
  assert.equal([[...of('a1')], [...of('a2')], [...of('a3')]], [[8000], [8002], []]);
});

test('a port that failed on every node: the next starts take the next port, on every node', () => {
  assert.equal(startPorts(emptyState()), ['a1:8000', 'a2:8000']);
  const state = failed([
    { node: 'a1', port: 8000 },
    { node: 'a2', port: 8000, replica: 'm-1' },
  ]);
  assert.equal(startPorts(state), ['a1:8001', 'a2:8001']);
});

test('a failed port is left aside only on its own node, and not after 30 minutes', () => {
  assert.equal(startPorts(failed([{ node: 'a1', port: 8000 }])), ['a1:8001', 'a2:8000']);
  assert.equal(startPorts(failed([{ node: 'a1', port: 8000, at: ago(FAILURE_MEMORY_MS) }])), ['a1:8000', 'a2:8000']);
});

test('the port is recorded with the failure: from a refused start, and from a replica reported failed', () => {
  const outcome = {
    failures: [
      { op: 'start', replica: 'm-0', model: 'm', host: 'a1', error: 'exited', port: 8003 },
      { op: 'start', replica: 'm-1', model: 'm', host: 'a2', error: 'no gpus' },
    ],
  } as unknown as ApplyOutcome;
  assert.equal(
    startFailuresOf(outcome, NOW).map((f) => f.port),
    [8003, undefined],
  );
  const seen = snapshot([up('a1', report(gpus(8), [replica('m-0', [0], { model: 'm', state: 'failed', port: 8004 })]))]);
  const state = recordObservedFailures(emptyState(), seen, new Date(NOW));
  assert.equal(
    state.startFailures.map((f) => [f.node, f.replica, f.port]),
    [['a1', 'm-0', 8004]],
  );
});

test.run();
