import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildFleet, modelCounts, replicaPort } from '../../src/fleet/index.js';
import { emptyState } from '../../src/types/state.js';
import { NOW, config, down, gpus, model, nodeConfig, replica, report, snapshot, up } from '../fixtures/index.js';

test('a replica spanning nodes is merged by id: failed beats starting beats running, start time of rank 0', () => {
  const c = config([nodeConfig('n1'), nodeConfig('n2'), nodeConfig('n3')]);
  const f = buildFleet(
    c,
    snapshot([
      up(
        'n1',
        report(gpus(8), [
          replica('ds-0', [0, 1], { rank: 1, state: 'starting', startedAt: '2026-11-29T01:00:00Z', port: undefined, endpoint: 'http://n1:8003' }),
        ]),
      ),
      up('n2', report(gpus(8), [replica('ds-0', [1, 0], { rank: 0, state: 'running', startedAt: '2026-11-29T00:00:00Z', spec: 'abc' })])),
      up('n3', report(gpus(8), [replica('ds-1', [0], { state: 'failed' }), replica('ok-0', [1], { state: 'running' })])),
    ]),
    emptyState(),
    NOW,
  );
  const ds = f.replicaById.get('ds-0')!;
  assert.is(ds.state, 'starting');
  assert.is(ds.startedAt, '2026-11-29T00:00:00Z');
  assert.equal(ds.nodes, ['n2', 'n1']);
  assert.equal(ds.ranks, [
    { node: 'n2', rank: 0, gpus: [0, 1] },
    { node: 'n1', rank: 1, gpus: [0, 1] },
  ]);
  assert.is(ds.spec, 'abc');
  assert.is(ds.port, 8000);
  assert.is(f.replicaById.get('ds-1')!.state, 'failed');
  assert.equal(
    f.replicas.map((r) => r.id),
    ['ds-0', 'ds-1', 'ok-0'],
  );
});

test('the port comes from the endpoint when the report gives none', () => {
  const c = config([nodeConfig('n1')]);
  const f = buildFleet(
    c,
    snapshot([up('n1', report(gpus(1), [replica('m-0', [0], { port: undefined, endpoint: 'http://n1.example:8042' })]))]),
    emptyState(),
    NOW,
  );
  assert.is(f.replicaById.get('m-0')!.port, 8042);
  assert.equal([...f.nodeByName.get('n1')!.usedPorts], [8042]);
});

test('a replica with any rank on a lost node is lost; on an unreachable one, unreachable', () => {
  const c = config([nodeConfig('n1'), nodeConfig('n2'), nodeConfig('n3')]);
  const f = buildFleet(
    c,
    snapshot([
      up('n1', report(gpus(8), [replica('x-0', [0], { rank: 0 }), replica('y-0', [1], { rank: 0 })])),
      down('n2', null, report(gpus(8), [replica('x-0', [0], { rank: 1 })])),
      down('n3', '2026-11-29T07:59:00Z', report(gpus(8), [replica('y-0', [0], { rank: 1 })])),
    ]),
    emptyState(),
    NOW,
  );
  assert.equal([f.replicaById.get('x-0')!.lost, f.replicaById.get('x-0')!.unreachable], [true, false]);
  assert.equal([f.replicaById.get('y-0')!.lost, f.replicaById.get('y-0')!.unreachable], [false, true]);
});

test('model counts: desired from models.yaml, states from replicas, lost ones gone, orphans desired 0', () => {
  const c = config([nodeConfig('n1'), nodeConfig('n2')], {}, [model('a', { replicas: 3 }), model('b', { replicas: 1 })]);
  const f = buildFleet(
    c,
    snapshot([
      up(
        'n1',
        report(gpus(8), [replica('a-0', [0]), replica('a-1', [1], { state: 'starting' }), replica('a-2', [2], { state: 'failed' }), replica('old-0', [3])]),
      ),
      down('n2', null, report(gpus(8), [replica('b-0', [0])])),
    ]),
    emptyState(),
    NOW,
  );
  assert.equal(modelCounts(f), [
    { name: 'a', desired: 3, running: 1, starting: 1, failed: 1 },
    { name: 'b', desired: 1, running: 0, starting: 0, failed: 0 },
    { name: 'old', desired: 0, running: 1, starting: 0, failed: 0 },
  ]);
});

test('a replica is one rank per node however often a report lists it; ids on a node are sorted', () => {
  const c = config([nodeConfig('n1')]);
  const f = buildFleet(c, snapshot([up('n1', report(gpus(8), [replica('m-1', [1]), replica('m-0', [0]), replica('m-1', [1])]))]), emptyState(), NOW);
  assert.equal(f.replicaById.get('m-1')!.ranks, [{ node: 'n1', rank: 0, gpus: [1] }]);
  assert.equal(f.nodeByName.get('n1')!.replicas, ['m-0', 'm-1']);
});

test('port and spec come from the first rank that reports them; no endpoint is null, not missing', () => {
  const c = config([nodeConfig('n1'), nodeConfig('n2')]);
  const f = buildFleet(
    c,
    snapshot([
      up('n1', report(gpus(8), [replica('ds-0', [0], { rank: 0, port: undefined, spec: undefined })])),
      up('n2', report(gpus(8), [replica('ds-0', [0], { rank: 1, port: 8007, spec: 'f00d' })])),
    ]),
    emptyState(),
    NOW,
  );
  const ds = f.replicaById.get('ds-0')!;
  assert.equal([ds.port, ds.spec, ds.endpoint], [8007, 'f00d', null]);
  assert.equal([...f.nodeByName.get('n1')!.usedPorts], [], 'n1 was told no port');
});

test('an endpoint without a port, or one that does not parse, gives no port (never 0)', () => {
  assert.is(replicaPort({ endpoint: 'http://n1.example/' }), null);
  assert.is(replicaPort({ endpoint: 'not a url' }), null);
  assert.is(replicaPort({ endpoint: 'http://n1.example:8042/v1' }), 8042);
  assert.is(replicaPort({ port: 8001, endpoint: 'http://n1.example:9/' }), 8001);
  const c = config([nodeConfig('n1')]);
  const f = buildFleet(c, snapshot([up('n1', report(gpus(2), [replica('m-0', [0], { port: undefined, endpoint: 'http://n1.example/' })]))]), emptyState(), NOW);
  assert.is(f.replicaById.get('m-0')!.port, null);
  assert.equal([...f.nodeByName.get('n1')!.usedPorts], []);
});

test('two nodes claiming the same rank of a replica: the first by node name keeps it and the other is a duplicate, whatever the report order', () => {
  const c = config([nodeConfig('n1'), nodeConfig('n2'), nodeConfig('n3')]);
  const f = buildFleet(
    c,
    snapshot([
      up('n3', report(gpus(8), [replica('ds-0', [0], { rank: 0 })])),
      up('n1', report(gpus(8), [replica('ds-0', [0], { rank: 1 })])),
      up('n2', report(gpus(8), [replica('ds-0', [0], { rank: 0 })])),
    ]),
    emptyState(),
    NOW,
  );
  assert.equal(f.replicaById.get('ds-0')!.nodes, ['n2', 'n1']);
  assert.equal(
    (f.duplicates ?? []).map((d) => [d.replica, d.nodes]),
    [['ds-0', ['n3']]],
  );
});

test.run();
