// What state.json remembers of drains and rollouts from one tick to the next
// (docs/protocol.md#the-snapshot), and how it is written and read back.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { emptyOutcome } from '../../src/apply/outcome.js';
import { parseState, serializeState } from '../../src/store/files.js';
import { DataError } from '../../src/errors.js';
import { lifecycleAfter } from '../../src/tick/lifecycle-state.js';
import type { StopAction } from '../../src/types/plan.js';
import { emptyState } from '../../src/types/state.js';
import { at, drainingState, lcConfig, model, planned, rep, router, snap, T0 } from '../plan/lifecycle-fixture.js';

const c = lcConfig([model('m1', { replicas: 1 })], { routers: ['rt-1', 'rt-2'] });
const reps = [rep(c, 'm1-0', 'n1', [0]), rep(c, 'm1-1', 'n1', [1]), rep(c, 'm1-2', 'n1', [2])];
const drain = (replica: string): StopAction => ({
  op: 'stop',
  replica,
  model: 'm1',
  placement: [{ node: 'n1', gpus: [1] }],
  reason: 'surplus (3 of 1)',
  waitFor: [],
  phase: 'drain',
});
const tables = (ok: boolean[]) => ({ ...emptyOutcome(), routerTables: ok.map((o, i) => ({ router: `rt-${i + 1}`, ok: o })) });

test('a drain begun is remembered with its reason; out of the tables once every router took the table', () => {
  const { fleet, plan } = planned(c, snap(c, reps, [router('rt-1'), router('rt-2')]));
  const effects = { started: [], stopped: [], drained: [drain('m1-1')] };
  const all = lifecycleAfter(undefined, { config: c, plan, fleet, effects, outcome: tables([true, true]), now: T0 });
  assert.equal(all, { draining: { 'm1-1': { since: T0, reason: 'surplus (3 of 1)', outOfTablesAt: T0 } }, rollouts: {} });
  const one = lifecycleAfter(undefined, { config: c, plan, fleet, effects, outcome: tables([true, false]), now: T0 });
  assert.equal(one!.draining['m1-1']!.outOfTablesAt, null, 'rt-2 may still list it');
  // The next tick's tables reach both: from then on, what the routers say counts.
  const later = lifecycleAfter(one, { config: c, plan, fleet, effects: { started: [], stopped: [] }, outcome: tables([true, true]), now: at(60) });
  assert.equal(later!.draining['m1-1'], { since: T0, reason: 'surplus (3 of 1)', outOfTablesAt: at(60) });
});

test('a drain is forgotten once its stop took effect, or its replica is gone; kept when the plan was not applied', () => {
  const state = drainingState({ 'm1-1': { since: T0 }, 'm1-2': { since: T0 }, 'm1-9': { since: T0 } });
  const { fleet, plan } = planned(c, snap(c, reps, [router('rt-1'), router('rt-2')], at(60)), state);
  const stopped = { ...drain('m1-1'), phase: 'stop' as const };
  const next = lifecycleAfter(state.lifecycle, {
    config: c,
    plan,
    fleet,
    effects: { started: [], stopped: [stopped] },
    outcome: tables([true, true]),
    now: at(60),
  });
  assert.equal(Object.keys(next!.draining), ['m1-2']);
  const held = lifecycleAfter(state.lifecycle, { config: c, plan, fleet, effects: null, now: at(60) });
  assert.equal(Object.keys(held!.draining), ['m1-1', 'm1-2']);
});

test('nothing to remember is no lifecycle key at all; a rollout record is what the applied plan says', () => {
  const { fleet, plan } = planned(c, snap(c, [reps[0]!], [router('rt-1'), router('rt-2')]));
  assert.is(lifecycleAfter(undefined, { config: c, plan, fleet, effects: { started: [], stopped: [] }, now: T0 }), undefined);
  const withRollout = {
    ...plan,
    rollouts: [{ model: 'm1', spec: 'abcd1234', stage: 'canary' as const, text: 't', next: { spec: 'abcd1234', stage: 'canary' as const } }],
  };
  assert.equal(lifecycleAfter(undefined, { config: c, plan: withRollout, fleet, effects: { started: [], stopped: [] }, now: T0 })!.rollouts, {
    m1: { spec: 'abcd1234', stage: 'canary' },
  });
});

test("state.json keeps the lifecycle with sorted keys, and reads it back; a broken lifecycle is the state file's error, like any other broken part", () => {
  const state = {
    ...emptyState(),
    lifecycle: {
      draining: { 'm1-2': { since: T0, reason: 'b', outOfTablesAt: null }, 'm1-1': { since: T0, reason: 'a', outOfTablesAt: T0 } },
      rollouts: {
        m1: {
          spec: 'abcd1234',
          stage: 'canary' as const,
          holdSince: T0,
          canaries: ['m1-4'],
          baseline: { 'rt-2': { startedAt: T0, requests: 1, errors: 0 }, 'rt-1': { startedAt: T0, requests: 2, errors: 1 } },
        },
      },
    },
  };
  const text = serializeState(state);
  assert.ok(text.indexOf('"m1-1"') < text.indexOf('"m1-2"') && text.indexOf('"rt-1"') < text.indexOf('"rt-2"'));
  assert.equal(parseState(text, 'state.json'), JSON.parse(text));
  assert.not.ok(serializeState(emptyState()).includes('lifecycle'));
  for (const lifecycle of [
    { draining: { x: 5 } },
    { draining: { y: { since: T0 } } },
    { rollouts: { m: { spec: 's', stage: 'nonsense' } } },
    { draining: { y: { since: 'yesterday', reason: 'r' } } },
  ]) {
    assert.throws(
      () => parseState(JSON.stringify({ version: 1, lifecycle }), 'state.json'),
      (e: Error) => e instanceof DataError && e.message.startsWith('state.json: not a valid state file ('),
      JSON.stringify(lifecycle),
    );
  }
});

test.run();
