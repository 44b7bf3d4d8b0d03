// docs/placement.md#stalled-and-ejected-replicas, as the fleet model records it:
// a running replica every router has ejected carries ejectedSince; one that is
// not running, or sits on a lost node, carries none, and without routers no
// replica is ejected.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildFleet } from '../../src/fleet/index.js';
import type { RouterObservation } from '../../src/types/snapshot.js';
import { emptyState } from '../../src/types/state.js';
import { NOW, config, down, gpus, model, nodeConfig, replica, report, snapshot, up } from '../fixtures/index.js';

const SINCE = '2026-11-29T07:59:00Z';
const ejectedAll = (ids: string[]): RouterObservation => ({
  name: 'rt-1',
  reachable: true,
  report: {
    version: 1,
    startedAt: '2026-11-29T07:00:00Z',
    lastUsed: {},
    ejected: Object.fromEntries(ids.map((id) => [id, { since: SINCE, until: '2026-11-29T08:01:00Z', reason: 'errors' as const, count: 3 }])),
  },
});

const c = config([nodeConfig('n1'), nodeConfig('n2')], {}, [model('m', { gpus: 1, replicas: 3 })]);
const n1 = report(gpus(4), [replica('m-0', [0]), replica('m-1', [1], { state: 'starting' })]);
const n2 = report(gpus(4), [replica('m-2', [0])]);

test('a running replica every router ejected carries ejectedSince; a starting one does not', () => {
  const f = buildFleet(c, snapshot([up('n1', n1), up('n2', n2)], [ejectedAll(['m-0', 'm-1'])]), emptyState(), NOW);
  assert.is(f.replicaById.get('m-0')?.ejectedSince, SINCE);
  assert.is(f.replicaById.get('m-1')?.ejectedSince, undefined);
  assert.not.ok(Object.hasOwn(f.replicaById.get('m-2') ?? {}, 'ejectedSince'), 'the router still routes m-2');
});

test('a replica on a lost node carries no ejectedSince', () => {
  const f = buildFleet(c, snapshot([up('n1', n1), down('n2', '2026-11-29T06:00:00Z', n2)], [ejectedAll(['m-0', 'm-2'])]), emptyState(), NOW);
  assert.is(f.replicaById.get('m-2')?.lost, true);
  assert.is(f.replicaById.get('m-2')?.ejectedSince, undefined);
  assert.is(f.replicaById.get('m-0')?.ejectedSince, SINCE);
});

test('no router: no replica is ejected', () => {
  const f = buildFleet(c, snapshot([up('n1', n1), up('n2', n2)]), emptyState(), NOW);
  assert.equal(
    f.replicas.filter((r) => Object.hasOwn(r, 'ejectedSince')).map((r) => r.id),
    [],
  );
});

test.run();
