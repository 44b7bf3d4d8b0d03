// GPU-hours over a synthetic history (src/ledger/ledger.ts): each interval
// counts at the earlier commit's fleet for at most 25 h, the rest is
// unobserved, and a GPU's bucket is the fleet model's.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { gpuHours, type LedgerCommit } from '../../src/ledger/ledger.js';
import type { Config } from '../../src/types/config.js';
import type { NodeObservation, RouterObservation } from '../../src/types/snapshot.js';
import { emptyState, type State } from '../../src/types/state.js';
import { config, down, gpus, model, nodeConfig, replica, report, routerUp, up } from '../fixtures/index.js';

const H = 3_600_000;
const T0 = Date.parse('2026-11-20T00:00:00Z');
const at = (h: number) => new Date(T0 + h * H).toISOString();

const base = config([nodeConfig('a'), nodeConfig('b')], {}, [model('m')]);

function commit(h: number, nodes: NodeObservation[], opts: { routers?: RouterObservation[]; state?: State; config?: Config } = {}): LedgerCommit {
  return {
    time: at(h),
    snapshot: { version: 1, observedAt: at(h), nodes, routers: opts.routers ?? [] },
    state: opts.state ?? emptyState(),
    config: opts.config ?? base,
  };
}

const fleetOf = (r: ReturnType<typeof gpuHours>) => r.fleet;
const modelOf = (r: ReturnType<typeof gpuHours>, name: string) => r.models.find((m) => m.model === name);

test('a constant fleet: 8 GPUs, one replica of 1 GPU with unknown idleness, for 10 h of hourly commits', () => {
  const nodes = [up('a', report(gpus(4), [replica('m-0', [0])])), up('b', report(gpus(4)))];
  const history = Array.from({ length: 11 }, (_, h) => commit(h, nodes));
  const r = gpuHours(history, { since: at(0), until: at(10) });
  // Unknown idleness (no routers) is serving, never idle.
  assert.equal(modelOf(r, 'm'), { model: 'm', serving: 10, idle: 0, transit: 0 });
  assert.equal(fleetOf(r), { serving: 10, idle: 0, transit: 0, free: 70, unhealthy: 0, other: 0, unreachable: 0, cordoned: 0, unobserved: 0 });
});

test('a replica starting then running: transit until the commit that saw it running, serving after', () => {
  const starting = [up('a', report(gpus(2), [replica('m-0', [0, 1], { state: 'starting' })]))];
  const running = [up('a', report(gpus(2), [replica('m-0', [0, 1])]))];
  const c = config([nodeConfig('a')], {}, [model('m', { gpus: 2 })]);
  const r = gpuHours([commit(0, starting, { config: c }), commit(1.5, running, { config: c })], { since: at(0), until: at(4) });
  assert.equal(modelOf(r, 'm'), { model: 'm', serving: 5, idle: 0, transit: 3 });
  assert.equal(r.fleet.free, 0);
});

test('an idle replica (every router answered, unused for idle.after) is idle; a used one beside it serves', () => {
  const c = config([nodeConfig('a')], { routers: [{ name: 'rt', host: 'rt', port: 22 }] }, [model('m')]);
  const nodes = [
    up('a', report(gpus(2), [replica('m-0', [0], { startedAt: '2026-11-01T00:00:00Z' }), replica('m-1', [1], { startedAt: '2026-11-01T00:00:00Z' })])),
  ];
  // The router started long ago; m-1 was used an hour before the commit, m-0 never.
  const routers = [routerUp('rt', '2026-11-02T00:00:00Z', { 'm-1': at(-1) })];
  const r = gpuHours([commit(0, nodes, { config: c, routers })], { since: at(0), until: at(2) });
  assert.equal(modelOf(r, 'm'), { model: 'm', serving: 2, idle: 2, transit: 0 });
});

test('an unreachable node: its GPUs count for the fleet as unreachable, its replica for no model', () => {
  const nodes = [up('a', report(gpus(2), [replica('m-0', [0])])), down('b', at(-0.05), report(gpus(4), [replica('m-1', [0, 1])]))];
  const r = gpuHours([commit(0, nodes)], { since: at(0), until: at(1) });
  assert.equal(modelOf(r, 'm'), { model: 'm', serving: 1, idle: 0, transit: 0 });
  assert.equal(r.fleet.unreachable, 4);
  assert.equal(r.fleet.free, 1);
});

test('a gap longer than 25 h: 25 h count at the commit before it, the rest is unobserved (a stopped reconciler invents nothing)', () => {
  const nodes = [up('a', report(gpus(1))), up('b', report(gpus(1), [replica('m-0', [0])]))];
  const r = gpuHours([commit(0, nodes), commit(30, nodes)], { since: at(0), until: at(31) });
  // 2 GPUs: 26 h observed (25 + 1), 5 h unobserved.
  assert.equal(r.fleet.free, 26);
  assert.equal(r.fleet.serving, 26);
  assert.equal(r.fleet.unobserved, 10);
  assert.equal(modelOf(r, 'm'), { model: 'm', serving: 26, idle: 0, transit: 0 });
});

test('the last commit counts forward until `until` or 25 h, and nothing before the first commit is invented', () => {
  const nodes = [up('a', report(gpus(1)))];
  const r = gpuHours([commit(10, nodes)], { since: at(0), until: at(40) });
  assert.equal(r.fleet.free, 25);
  // 10 h before it and 5 h after its 25 h, at its one GPU.
  assert.equal(r.fleet.unobserved, 15);
});

test('a range cut mid-interval: only the part inside counts, from a commit before `since`', () => {
  const a = [up('a', report(gpus(1), [replica('m-0', [0])]))];
  const b = [up('a', report(gpus(1)))];
  const r = gpuHours([commit(0, a), commit(4, b), commit(8, a)], { since: at(2.5), until: at(5.25) });
  assert.equal(modelOf(r, 'm'), { model: 'm', serving: 1.5, idle: 0, transit: 0 });
  assert.equal(r.fleet.free, 1.25);
  assert.equal(r.fleet.unobserved, 0);
});

test('commits in any order count the same as in time order', () => {
  const a = [up('a', report(gpus(1), [replica('m-0', [0])]))];
  const b = [up('a', report(gpus(1)))];
  const history = [commit(0, a), commit(4, b), commit(8, a)];
  const range = { since: at(0), until: at(10) };
  assert.equal(gpuHours([...history].reverse(), range), gpuHours(history, range));
});

test('hours have two decimals: 1 GPU for 20 minutes is 0.33', () => {
  const r = gpuHours([commit(0, [up('a', report(gpus(1)))])], { since: at(0), until: at(1 / 3) });
  assert.equal(r.fleet.free, 0.33);
});

test('a draining or failed replica is transit; unhealthy, foreign and cordoned GPUs keep their STATUS.md buckets', () => {
  const c = config([nodeConfig('a'), nodeConfig('b', { cordon: true })], {}, [model('m')]);
  const state: State = { ...emptyState(), lifecycle: { draining: { 'm-0': { since: at(-1), reason: 'surplus', outOfTablesAt: null } }, rollouts: {} } };
  const nodes = [
    up(
      'a',
      report(
        [...gpus(3, undefined, [2]), { index: 3, name: 'NVIDIA H100 80GB HBM3', healthy: true, foreign: 2 }],
        [replica('m-0', [0]), replica('m-1', [1], { state: 'failed' })],
      ),
    ),
    up('b', report(gpus(2))),
  ];
  const r = gpuHours([commit(0, nodes, { config: c, state })], { since: at(0), until: at(1) });
  assert.equal(modelOf(r, 'm'), { model: 'm', serving: 0, idle: 0, transit: 2 });
  assert.equal(r.fleet, { serving: 0, idle: 0, transit: 2, free: 0, unhealthy: 1, other: 1, unreachable: 0, cordoned: 2, unobserved: 0 });
});

test('no commit at all: nothing is known, every figure is 0, and the models list is empty', () => {
  const r = gpuHours([], { since: at(0), until: at(10) });
  assert.equal(r.models, []);
  assert.equal(Object.values(r.fleet), [0, 0, 0, 0, 0, 0, 0, 0, 0]);
});

test.run();
