// src/config/lifecycle-file.ts: state.json's `lifecycle` part. Reading keeps the
// drains and rollouts it can use and drops the rest (a hand-edited or older
// file never crashes a tick); writing sorts the keys llmgw keys by name, so an
// unchanged drain or rollout is unchanged bytes.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { lifecycleJson, parseLifecycle } from '../../src/store/lifecycle-file.js';
import type { LifecycleState } from '../../src/types/state.js';

const T0 = '2026-11-29T08:00:00Z';
const T1 = '2026-11-29T08:05:00Z';

test('parseLifecycle: no lifecycle, or one that is not a mapping, is undefined (not an empty lifecycle)', () => {
  assert.is(parseLifecycle(undefined), undefined);
  assert.is(parseLifecycle(null), undefined);
  assert.is(parseLifecycle([{ draining: {} }]), undefined);
  assert.is(parseLifecycle('draining'), undefined);
  assert.is(parseLifecycle({}), undefined);
  assert.is(parseLifecycle({ draining: {}, rollouts: {} }), undefined);
});

test('parseLifecycle: a drain keeps since, reason and outOfTablesAt as written', () => {
  const l = parseLifecycle({ draining: { 'm-r1': { since: T0, reason: 'scale-down', outOfTablesAt: T1 } } });
  assert.equal(l, { draining: { 'm-r1': { since: T0, reason: 'scale-down', outOfTablesAt: T1 } }, rollouts: {} });
});

test('parseLifecycle: a drain without a reason stops as "stop"; without (or with a non-string) outOfTablesAt it is not yet out of the tables (null)', () => {
  const l = parseLifecycle({ draining: { a: { since: T0 }, b: { since: T0, reason: 7, outOfTablesAt: 12 } } });
  assert.equal(l, {
    draining: { a: { since: T0, reason: 'stop', outOfTablesAt: null }, b: { since: T0, reason: 'stop', outOfTablesAt: null } },
    rollouts: {},
  });
});

test('parseLifecycle: a drain whose since is missing or not a string, or that is not a mapping, is dropped; the good ones stay', () => {
  const l = parseLifecycle({
    draining: {
      good: { since: T0, reason: 'r' },
      noSince: { reason: 'r' },
      numSince: { since: 5, reason: 'r' },
      nullEntry: null,
      listEntry: [T0],
      text: T0,
    },
  });
  assert.equal(l, { draining: { good: { since: T0, reason: 'r', outOfTablesAt: null } }, rollouts: {} });
  // Nothing usable at all: no lifecycle.
  assert.is(parseLifecycle({ draining: { noSince: { reason: 'r' }, nullEntry: null, numSince: { since: 5 } } }), undefined);
});

test('parseLifecycle: draining or rollouts that are not mappings hold nothing', () => {
  assert.is(parseLifecycle({ draining: [{ since: T0 }], rollouts: [{ spec: 's', stage: 'canary' }] }), undefined);
  assert.is(parseLifecycle({ draining: null, rollouts: 'x' }), undefined);
});

test('parseLifecycle: a rollout in each stage (canary, rolling, failed) is kept as written, its other keys untouched', () => {
  const canary = { spec: 'h1', stage: 'canary', holdSince: T0, canaries: ['a-r1'], baseline: { r1: { startedAt: T0, requests: 3, errors: 0 } } };
  const rolling = { spec: 'h2', stage: 'rolling' };
  const failed = { spec: 'h3', stage: 'failed', reason: 'canary errors', failedAt: T1 };
  const l = parseLifecycle({ rollouts: { a: canary, b: rolling, c: failed } });
  assert.equal(l, { draining: {}, rollouts: { a: canary, b: rolling, c: failed } });
  for (const stage of ['canary', 'rolling', 'failed']) {
    assert.equal(parseLifecycle({ rollouts: { m: { spec: 's', stage } } }), { draining: {}, rollouts: { m: { spec: 's', stage } } }, stage);
  }
});

test('parseLifecycle: a rollout without a string spec, with an unknown or missing stage, or not a mapping, is dropped', () => {
  const l = parseLifecycle({
    rollouts: {
      ok: { spec: 's', stage: 'rolling' },
      noSpec: { stage: 'canary' },
      numSpec: { spec: 3, stage: 'canary' },
      badStage: { spec: 's', stage: 'done' },
      emptyStage: { spec: 's', stage: '' },
      noStage: { spec: 's' },
      nullEntry: null,
      listEntry: ['s', 'canary'],
    },
  });
  assert.equal(l, { draining: {}, rollouts: { ok: { spec: 's', stage: 'rolling' } } });
  assert.is(parseLifecycle({ rollouts: { noSpec: { stage: 'canary' }, badStage: { spec: 's', stage: 'done' } } }), undefined);
});

test('parseLifecycle: one drain and one rollout together are both kept', () => {
  assert.equal(parseLifecycle({ draining: { d: { since: T0 } }, rollouts: { m: { spec: 's', stage: 'canary' } } }), {
    draining: { d: { since: T0, reason: 'stop', outOfTablesAt: null } },
    rollouts: { m: { spec: 's', stage: 'canary' } },
  });
});

function lifecycle(order: 'forward' | 'reverse'): LifecycleState {
  const drains: [string, { since: string; reason: string; outOfTablesAt: string | null }][] = [
    ['alpha-r1', { since: T0, reason: 'stop', outOfTablesAt: null }],
    ['beta-r2', { since: T1, reason: 'scale-down', outOfTablesAt: T1 }],
    ['gamma-r3', { since: T0, reason: 'stop', outOfTablesAt: T1 }],
  ];
  const base: [string, { startedAt: string; requests: number; errors: number }][] = [
    ['router-a', { startedAt: T0, requests: 10, errors: 1 }],
    ['router-b', { startedAt: T0, requests: 20, errors: 0 }],
    ['router-c', { startedAt: T1, requests: 0, errors: 0 }],
  ];
  const rolls: [string, LifecycleState['rollouts'][string]][] = [
    [
      'alpha',
      { spec: 'h1', stage: 'canary', holdSince: T0, canaries: ['alpha-r4'], baseline: Object.fromEntries(order === 'forward' ? base : [...base].reverse()) },
    ],
    ['beta', { spec: 'h2', stage: 'rolling' }],
    ['gamma', { spec: 'h3', stage: 'failed', reason: 'errors', failedAt: T1 }],
  ];
  const pick = <T>(xs: T[]) => (order === 'forward' ? xs : [...xs].reverse());
  return { draining: Object.fromEntries(pick(drains)), rollouts: Object.fromEntries(pick(rolls)) };
}

test("lifecycleJson: drains, rollouts and each rollout's routers are sorted by name, so the same lifecycle is the same bytes whatever order built it", () => {
  const expected =
    '{"draining":{' +
    `"alpha-r1":{"since":"${T0}","reason":"stop","outOfTablesAt":null},` +
    `"beta-r2":{"since":"${T1}","reason":"scale-down","outOfTablesAt":"${T1}"},` +
    `"gamma-r3":{"since":"${T0}","reason":"stop","outOfTablesAt":"${T1}"}},` +
    '"rollouts":{' +
    `"alpha":{"spec":"h1","stage":"canary","holdSince":"${T0}","canaries":["alpha-r4"],"baseline":{` +
    `"router-a":{"startedAt":"${T0}","requests":10,"errors":1},` +
    `"router-b":{"startedAt":"${T0}","requests":20,"errors":0},` +
    `"router-c":{"startedAt":"${T1}","requests":0,"errors":0}}},` +
    '"beta":{"spec":"h2","stage":"rolling"},' +
    `"gamma":{"spec":"h3","stage":"failed","reason":"errors","failedAt":"${T1}"}}}`;
  assert.is(JSON.stringify(lifecycleJson(lifecycle('forward'))), expected);
  assert.is(JSON.stringify(lifecycleJson(lifecycle('reverse'))), expected);
});

test('lifecycleJson: a rollout without a baseline is written as it is (no baseline key appears)', () => {
  const out = lifecycleJson({ draining: {}, rollouts: { m: { spec: 's', stage: 'rolling' } } });
  assert.is(JSON.stringify(out), '{"draining":{},"rollouts":{"m":{"spec":"s","stage":"rolling"}}}');
  assert.not.ok('baseline' in out.rollouts.m!);
});

test.run();
