// What the status report says about each part of the fleet (src/status/summarize.ts,
// where.ts): failing answer checks, GPUs in other hands, nodes down without a
// reason, idle replicas that are draining, duplicates; and the where-lists.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildFleet } from '../../src/fleet/index.js';
import { summarize } from '../../src/status/index.js';
import { gpuGroups, gpusByNode, replicaError } from '../../src/status/where.js';
import type { NodeObservation } from '../../src/types/snapshot.js';
import { emptyState, type State } from '../../src/types/state.js';
import { NOW, config, foreignGpu as foreign, gpus, model, nodeConfig, replica, report, routerUp, snapshot, up } from '../fixtures/index.js';

const CHECK_AT = '2026-11-29T07:59:30Z';

function fleetOf(obs: NodeObservation[], state: State = emptyState(), extra: Parameters<typeof config>[1] = {}) {
  const c = config(
    obs.map((o) => nodeConfig(o.name)),
    extra,
    [model('m', { replicas: 3 })],
  );
  return buildFleet(
    c,
    snapshot(obs, extra.routers ? [routerUp('rt-1', '2026-11-20T00:00:00Z', { 'm-0': '2026-11-20T00:00:00Z', 'm-1': '2026-11-20T00:00:00Z' })] : []),
    state,
    NOW,
  );
}

test('a running replica whose answer check fails shows the check\'s error; "no answer matched" when the check gave none', () => {
  const f = fleetOf([
    up(
      'n1',
      report(gpus(3), [
        replica('m-0', [0], { check: { ok: false, at: CHECK_AT, error: 'HTTP 500' } }),
        replica('m-1', [1], { check: { ok: false, at: CHECK_AT } }),
        replica('m-2', [2], { check: { ok: true, at: CHECK_AT } }),
      ]),
    ),
  ]);
  const rows = summarize(f, []).replicas;
  assert.equal(
    rows.map((r) => [r.id, r.check ?? null]),
    [
      ['m-0', { ok: false, error: 'HTTP 500' }],
      ['m-1', { ok: false, error: 'no answer matched' }],
      ['m-2', null],
    ],
  );
});

test("a starting replica's failed check is not shown: it is still within its time to answer", () => {
  const f = fleetOf([up('n1', report(gpus(1), [replica('m-0', [0], { state: 'starting', check: { ok: false, at: CHECK_AT, error: 'HTTP 503' } })]))]);
  assert.is(summarize(f, []).replicas[0]!.check, undefined);
});

test('GPUs in other hands are listed per node in name order with their indices; the key is absent when there are none', () => {
  const f = fleetOf([
    up('n1', report([foreign(0, 0), foreign(1, 2), foreign(2, 0), foreign(3, 1)])),
    up('n2', report(gpus(2))),
    up('n3', report([foreign(0, 5)])),
  ]);
  assert.equal(summarize(f, []).nodes.other, [
    { node: 'n1', gpus: [1, 3] },
    { node: 'n3', gpus: [0] },
  ]);
  const quiet = fleetOf([up('n1', report(gpus(2)))]);
  assert.ok(!('other' in summarize(quiet, []).nodes));
});

test('a node down with no reason class is listed with reason "unknown"', () => {
  const f = fleetOf([{ name: 'n1', reachable: false, error: 'connect ETIMEDOUT', unreachableSince: '2026-11-29T07:59:00Z', lastReport: null }]);
  assert.equal(summarize(f, []).nodes.unreachable, [{ node: 'n1', since: '2026-11-29T07:59:00Z', reason: 'unknown', error: 'connect ETIMEDOUT' }]);
});

test('a draining replica is not listed as idle, however long unused', () => {
  const state: State = { ...emptyState(), lifecycle: { draining: { 'm-1': { since: NOW, reason: 'surplus', outOfTablesAt: null } }, rollouts: {} } };
  const routers = [{ name: 'rt-1', host: 'rt-1', port: 22 }];
  const f = fleetOf([up('n1', report(gpus(2), [replica('m-0', [0]), replica('m-1', [1])]))], state, { routers });
  assert.equal(
    summarize(f, []).idle.map((r) => r.replica),
    ['m-0'],
  );
});

test('duplicates are listed with their nodes and the nodes of record; none is an empty list', () => {
  const c = config([nodeConfig('n1'), nodeConfig('n2')], {}, [model('m')]);
  const f = buildFleet(c, snapshot([up('n1', report(gpus(1), [replica('m-0', [0])])), up('n2', report(gpus(1), [replica('m-0', [0])]))]), emptyState(), NOW);
  assert.equal(summarize(f, []).duplicates, [{ replica: 'm-0', model: 'm', nodes: ['n2'], recordNodes: ['n1'] }]);
  assert.equal(summarize({ ...f, duplicates: undefined }, []).duplicates, []);
});

test("where: a node's GPU list is `node:indices` compressed; empty reasons are dropped, repeated ones said once", () => {
  const at = [
    { node: 'n1', index: 4, reason: 'Xid 79' },
    { node: 'n1', index: 1, reason: '' },
    { node: 'n1', index: 5, reason: 'Xid 79' },
    { node: 'n1', index: 6, reason: null },
  ];
  assert.equal(gpusByNode(at), [{ node: 'n1', indices: '[1,4-6]', list: 'n1:[1,4-6]', reasons: ['Xid 79'] }]);
});

test('where: nodes with the same unhealthy indices share one hostlist entry, ordered by their first node', () => {
  const at = [
    { node: 'gpu-b01', index: 0 },
    { node: 'gpu-a02', index: 3 },
    { node: 'gpu-a01', index: 3 },
  ];
  assert.equal(gpuGroups(at), [
    { name: 'gpu-a[01-02]:3', nodes: ['gpu-a01', 'gpu-a02'] },
    { name: 'gpu-b01:0', nodes: ['gpu-b01'] },
  ]);
});

test("where: a failed multi-node replica's error is its first failed rank's, named by node; a running rank's stale error is skipped", () => {
  const c = config([nodeConfig('n1'), nodeConfig('n2')], {}, [model('m', { nodes: 2 })]);
  const f = buildFleet(
    c,
    snapshot([
      up('n1', report(gpus(1), [replica('m-0', [0], { rank: 0, state: 'running', error: 'old: restarted once' })])),
      up('n2', report(gpus(1), [replica('m-0', [0], { rank: 1, state: 'failed', error: 'NCCL timeout' })])),
    ]),
    emptyState(),
    NOW,
  );
  const r = f.replicaById.get('m-0')!;
  assert.is(r.state, 'failed');
  assert.is(replicaError(f, r), 'n2: NCCL timeout');
});

test.run();
