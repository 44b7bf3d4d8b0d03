import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildFleet, capacityByClass, freeWholeNodes } from '../../src/fleet/index.js';
import { emptyState } from '../../src/types/state.js';
import { NOW, config, down, gpus, nodeConfig, replica, report, snapshot, up } from '../fixtures/index.js';

function bucketsOf(f: ReturnType<typeof buildFleet>, node: string): string[] {
  return f.nodeByName.get(node)!.gpus.map((g) => g.bucket);
}

test('GPUs of an unreachable node are unreachable, even unhealthy or used ones', () => {
  const c = config([nodeConfig('n1')]);
  const f = buildFleet(c, snapshot([down('n1', '2026-11-29T07:59:00Z', report(gpus(3, undefined, [1]), [replica('m-0', [0])]))]), emptyState(), NOW);
  assert.equal(bucketsOf(f, 'n1'), ['unreachable', 'unreachable', 'unreachable']);
});

test('an unhealthy GPU is neither used nor free, even when a replica holds it', () => {
  const c = config([nodeConfig('n1')]);
  const f = buildFleet(c, snapshot([up('n1', report(gpus(4, undefined, [0, 3]), [replica('m-0', [0, 1])]))]), emptyState(), NOW);
  assert.equal(bucketsOf(f, 'n1'), ['unhealthy', 'used', 'free', 'unhealthy']);
  const [h100] = capacityByClass(f);
  assert.equal(h100, { class: 'H100', total: 4, used: 1, free: 1, unhealthy: 2, other: 0, unreachable: 0, cordoned: 0 });
});

test('a GPU a replica holds is used whatever the replica state', () => {
  const c = config([nodeConfig('n1')]);
  const reps = [replica('a-0', [0], { state: 'failed' }), replica('b-0', [1], { state: 'starting', port: 8001 })];
  const f = buildFleet(c, snapshot([up('n1', report(gpus(3), reps))]), emptyState(), NOW);
  assert.equal(bucketsOf(f, 'n1'), ['used', 'used', 'free']);
  assert.equal([...f.nodeByName.get('n1')!.usedPorts].sort(), [8000, 8001]);
});

test('healthy unused GPUs of a cordoned node are cordoned, used ones stay used', () => {
  const c = config([nodeConfig('n1', { cordon: true })]);
  const f = buildFleet(c, snapshot([up('n1', report(gpus(3, undefined, [2]), [replica('m-0', [0])]))]), emptyState(), NOW);
  assert.equal(bucketsOf(f, 'n1'), ['used', 'cordoned', 'unhealthy']);
});

test('total is the sum of the buckets, per class', () => {
  const c = config([nodeConfig('n1'), nodeConfig('n2'), nodeConfig('n3', { cordon: true }), nodeConfig('n4')]);
  const f = buildFleet(
    c,
    snapshot([
      up('n1', report(gpus(8, 'NVIDIA H100 80GB HBM3', [7]), [replica('m-0', [0, 1, 2, 3])])),
      up('n2', report(gpus(8, 'NVIDIA A100-SXM4-80GB'))),
      up('n3', report(gpus(8))),
      down('n4', '2026-11-29T07:59:00Z', report(gpus(8))),
    ]),
    emptyState(),
    NOW,
  );
  assert.equal(capacityByClass(f), [
    { class: 'A100', total: 8, used: 0, free: 8, unhealthy: 0, other: 0, unreachable: 0, cordoned: 0 },
    { class: 'H100', total: 24, used: 4, free: 3, unhealthy: 1, other: 0, unreachable: 8, cordoned: 8 },
  ]);
});

test('gpuClasses globs decide the class before the name rule', () => {
  const c = config([nodeConfig('n1')], { gpuClasses: [{ name: 'hopper', glob: 'NVIDIA H1?0*' }] });
  const f = buildFleet(c, snapshot([up('n1', report([...gpus(1), { index: 1, name: 'NVIDIA A100-SXM4-80GB', healthy: true }]))]), emptyState(), NOW);
  assert.equal(
    f.nodeByName.get('n1')!.gpus.map((g) => g.class),
    ['hopper', 'A100'],
  );
});

test('a free whole node is reachable, uncordoned, replica-free, healthy and of one class', () => {
  const c = config([
    nodeConfig('whole'),
    nodeConfig('busy'),
    nodeConfig('sick'),
    nodeConfig('cord', { cordon: true }),
    nodeConfig('empty'),
    nodeConfig('gone'),
    nodeConfig('b1', { fabric: 'ib-b' }),
  ]);
  const f = buildFleet(
    c,
    snapshot([
      up('whole', report(gpus(8))),
      up('busy', report(gpus(8), [replica('m-0', [0])])),
      up('sick', report(gpus(8, undefined, [5]))),
      up('cord', report(gpus(8))),
      up('empty', report([])),
      down('gone', '2026-11-29T07:59:00Z', report(gpus(8))),
      up('b1', report(gpus(8, 'NVIDIA H200'))),
    ]),
    emptyState(),
    NOW,
  );
  const whole = f.nodes.filter((n) => n.freeWholeClass !== null).map((n) => `${n.name}:${n.freeWholeClass}`);
  assert.equal(whole, ['b1:H200', 'whole:H100']);
  const byFabric = freeWholeNodes(f);
  assert.equal([...byFabric.get('ib-a')!], [['H100', 1]]);
  assert.equal([...byFabric.get('ib-b')!], [['H200', 1]]);
});

test('a node mixing GPU classes is a free whole node of no class', () => {
  const c = config([nodeConfig('mixed')]);
  const mixed = [...gpus(4), ...gpus(4, 'NVIDIA A100-SXM4-80GB').map((g) => ({ ...g, index: g.index + 4 }))];
  const f = buildFleet(c, snapshot([up('mixed', report(mixed))]), emptyState(), NOW);
  assert.is(f.nodeByName.get('mixed')!.freeWholeClass, null);
  assert.equal([...freeWholeNodes(f).get('ib-a')!].sort(), [
    ['A100', 0],
    ['H100', 0],
  ]);
  assert.equal(
    capacityByClass(f).map((c) => [c.class, c.free]),
    [
      ['A100', 4],
      ['H100', 4],
    ],
  );
});

test("a node's GPUs are in index order whatever order its report lists them", () => {
  const c = config([nodeConfig('n1')]);
  const listed = [3, 1, 0, 2].map((index) => ({ index, name: 'NVIDIA H100 80GB HBM3', healthy: true }));
  const f = buildFleet(c, snapshot([up('n1', report(listed, [replica('m-0', [1])]))]), emptyState(), NOW);
  assert.equal(
    f.nodeByName.get('n1')!.gpus.map((g) => [g.index, g.bucket]),
    [
      [0, 'free'],
      [1, 'used'],
      [2, 'free'],
      [3, 'free'],
    ],
  );
});

test('a GPU two replicas both claim belongs to the first one the report lists', () => {
  const c = config([nodeConfig('n1')]);
  const f = buildFleet(c, snapshot([up('n1', report(gpus(2), [replica('b-0', [0]), replica('a-0', [0, 1])]))]), emptyState(), NOW);
  assert.equal(
    f.nodeByName.get('n1')!.gpus.map((g) => g.replica),
    ['b-0', 'a-0'],
  );
});

test('a node running a replica is not a free whole node, even when the replica names none of its GPUs', () => {
  const c = config([nodeConfig('n1')]);
  const f = buildFleet(c, snapshot([up('n1', report(gpus(8), [replica('cpu-0', [])]))]), emptyState(), NOW);
  const n = f.nodeByName.get('n1')!;
  assert.equal(
    n.gpus.map((g) => g.bucket),
    Array(8).fill('free'),
  );
  assert.is(n.freeWholeClass, null);
  assert.equal([...freeWholeNodes(f).get('ib-a')!], [['H100', 0]]);
});

test.run();
