// What classify makes of a drain that is over (docs/safety.md#drains), and
// which stops free their GPUs in the same plan.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { freesNow } from '../../src/plan/classify.js';
import type { StopAction } from '../../src/types/plan.js';
import { drainingState, lcConfig, lines, model, planned, rep, router, snap } from './lifecycle-fixture.js';

const stop = (phase?: StopAction['phase']): StopAction => ({
  op: 'stop',
  replica: 'm-0',
  model: 'm',
  placement: [{ node: 'n1', gpus: [0] }],
  reason: 'not in models.yaml',
  waitFor: [],
  ...(phase === undefined ? {} : { phase }),
});

test('a stop frees its GPUs this tick unless it is a drain: no phase and phase "stop" free them, "drain" holds them', () => {
  assert.equal([freesNow(stop()), freesNow(stop('stop')), freesNow(stop('drain'))], [true, true, false]);
});

test('a draining replica that failed, on a node that does not answer, gets no stop (none of its ranks can be told) and keeps its GPUs', () => {
  const c = lcConfig([model('m', { replicas: 1, gpus: 8 })]);
  // A minute after the fixture's node stopped answering: unreachable, not lost.
  const observedAt = '2026-11-28T00:01:00Z';
  const state = drainingState({ 'm-0': { since: '2026-11-28T00:00:30Z' } });
  const reps = [rep(c, 'm-0', 'n1', [0, 1, 2, 3, 4, 5, 6, 7], { state: 'failed' }), rep(c, 'm-1', 'n2', [0, 1, 2, 3, 4, 5, 6, 7])];
  const { plan } = planned(c, snap(c, reps, [router('rt-1')], observedAt, {}, ['n1']), state);
  assert.equal(lines(plan), []);
  assert.equal(plan.unplaceable, []);
});

test.run();
