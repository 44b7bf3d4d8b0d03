import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildFleet } from '../../src/fleet/index.js';
import { emptyState } from '../../src/types/state.js';
import type { RouterObservation } from '../../src/types/snapshot.js';
import { NOW, config, gpus, nodeConfig, replica, report, routerUp, snapshot, up } from '../fixtures/index.js';

const routers = [
  { name: 'rt-1', host: 'rt-1', port: 22 },
  { name: 'rt-2', host: 'rt-2', port: 22 },
];
const STARTED = '2026-11-27T08:00:00Z';

function idleOf(obs: RouterObservation[], startedAt: string | null = STARTED, state: 'running' | 'starting' = 'running', rts = routers) {
  const c = config([nodeConfig('n1')], { routers: rts });
  const f = buildFleet(c, snapshot([up('n1', report(gpus(1), [replica('m-0', [0], { startedAt: startedAt ?? undefined, state })]))], obs), emptyState(), NOW);
  const r = f.replicaById.get('m-0')!;
  return { idleSeconds: r.idleSeconds, idleSince: r.idleSince, answered: f.routersAnswered };
}

function withInflight(o: RouterObservation, inflight: Record<string, number>): RouterObservation {
  return o.reachable ? { ...o, report: { ...o.report, inflight } } : o;
}

test('the newest lastUsed over every router wins', () => {
  const got = idleOf([
    routerUp('rt-1', '2026-11-20T00:00:00Z', { 'm-0': '2026-11-28T06:00:00Z' }),
    routerUp('rt-2', '2026-11-20T00:00:00Z', { 'm-0': '2026-11-29T07:00:00Z' }),
  ]);
  assert.equal(got, { idleSeconds: 3600, idleSince: '2026-11-29T07:00:00Z', answered: true });
});

test('a request still in flight on any router is use now, however long ago it acquired the replica', () => {
  const streaming = withInflight(routerUp('rt-2', '2026-11-20T00:00:00Z', { 'm-0': '2026-11-29T07:00:00Z' }), { 'm-0': 1 });
  const got = idleOf([routerUp('rt-1', '2026-11-20T00:00:00Z', { 'm-0': '2026-11-28T06:00:00Z' }), streaming]);
  assert.equal(got, { idleSeconds: 0, idleSince: new Date(NOW).toISOString(), answered: true });
});

test('in flight 0, or in flight on another replica, leaves idleness to lastUsed', () => {
  const rt = withInflight(routerUp('rt-1', '2026-11-20T00:00:00Z', { 'm-0': '2026-11-29T07:00:00Z' }), { 'm-0': 0, 'm-1': 3 });
  const got = idleOf([rt, routerUp('rt-2', '2026-11-20T00:00:00Z')]);
  assert.equal(got, { idleSeconds: 3600, idleSince: '2026-11-29T07:00:00Z', answered: true });
});

test('a router that has not served the replica contributes its own start time', () => {
  const got = idleOf([routerUp('rt-1', '2026-11-28T08:00:00Z'), routerUp('rt-2', '2026-11-20T00:00:00Z', { 'm-0': '2026-11-27T09:00:00Z' })]);
  assert.equal(got, { idleSeconds: 86400, idleSince: '2026-11-28T08:00:00Z', answered: true });
});

test('a restarted router nominates nothing: idleness is bounded by its start', () => {
  const got = idleOf([routerUp('rt-1', '2026-11-29T07:59:50Z'), routerUp('rt-2', '2026-11-29T07:59:50Z')]);
  assert.equal(got, { idleSeconds: 10, idleSince: '2026-11-29T07:59:50Z', answered: true });
});

test('the replica start bounds idleness when every router is older and silent about it', () => {
  const got = idleOf([routerUp('rt-1', '2026-11-01T00:00:00Z'), routerUp('rt-2', '2026-11-01T00:00:00Z')]);
  assert.equal(got, { idleSeconds: 2 * 86400, idleSince: STARTED, answered: true });
});

test('one unreachable router makes idleness unknown, never zero nor the oldest', () => {
  const got = idleOf([routerUp('rt-1', '2026-11-01T00:00:00Z'), { name: 'rt-2', reachable: false, error: 'timeout' }]);
  assert.equal(got, { idleSeconds: null, idleSince: null, answered: false });
});

test('a configured router missing from the snapshot makes idleness unknown', () => {
  const got = idleOf([routerUp('rt-1', '2026-11-01T00:00:00Z')]);
  assert.equal(got, { idleSeconds: null, idleSince: null, answered: false });
});

test('with no routers configured idleness is unknown', () => {
  const got = idleOf([], STARTED, 'running', []);
  assert.equal(got, { idleSeconds: null, idleSince: null, answered: false });
});

test('a replica without startedAt has unknown idleness', () => {
  const got = idleOf([routerUp('rt-1', '2026-11-01T00:00:00Z'), routerUp('rt-2', '2026-11-01T00:00:00Z')], null);
  assert.equal([got.idleSeconds, got.idleSince], [null, null]);
});

test('a replica that is not running has no idleness', () => {
  const got = idleOf([routerUp('rt-1', '2026-11-01T00:00:00Z'), routerUp('rt-2', '2026-11-01T00:00:00Z')], STARTED, 'starting');
  assert.equal([got.idleSeconds, got.idleSince], [null, null]);
});

test('a start time or router time that does not parse makes idleness unknown, never idle nor NaN', () => {
  assert.equal(idleOf([routerUp('rt-1', '2026-11-20T00:00:00Z'), routerUp('rt-2', '2026-11-20T00:00:00Z')], 'last tuesday'), {
    idleSeconds: null,
    idleSince: null,
    answered: true,
  });
  const garbled = idleOf([routerUp('rt-1', '2026-11-20T00:00:00Z', { 'm-0': 'soon' }), routerUp('rt-2', '2026-11-20T00:00:00Z')]);
  assert.equal(garbled, { idleSeconds: null, idleSince: null, answered: true });
});

test.run();
