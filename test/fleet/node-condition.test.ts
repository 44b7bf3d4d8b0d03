import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildFleet } from '../../src/fleet/index.js';
import { emptyState } from '../../src/types/state.js';
import { NOW, config, down, gpus, nodeConfig, replica, report, snapshot, up } from '../fixtures/index.js';

const cfg = config(['n1', 'n2', 'n3', 'n4', 'n5'].map((n) => nodeConfig(n)));
const last = report(gpus(2), [replica('m-0', [0])]);

function build(nodes: Parameters<typeof snapshot>[0], state = emptyState()) {
  return buildFleet(cfg, snapshot(nodes), state, NOW);
}

test('a node that answered is reachable', () => {
  const f = build([up('n1', report(gpus(2)))]);
  assert.is(f.nodeByName.get('n1')!.condition, 'reachable');
  assert.is(f.nodeByName.get('n1')!.unreachableSince, null);
});

test('a node silent for less than lostAfter is unreachable and keeps its last report', () => {
  const f = build([down('n2', '2026-11-29T07:55:00Z', last)]);
  const n = f.nodeByName.get('n2')!;
  assert.is(n.condition, 'unreachable');
  assert.is(n.unreachableSince, '2026-11-29T07:55:00Z');
  assert.is(n.gpus.length, 2);
  assert.equal(n.replicas, ['m-0']);
  assert.is(f.replicaById.get('m-0')!.unreachable, true);
  assert.is(f.replicaById.get('m-0')!.lost, false);
});

test('a node silent for exactly lostAfter is lost', () => {
  const f = build([down('n3', '2026-11-29T07:50:00Z', last)]);
  assert.is(f.nodeByName.get('n3')!.condition, 'lost');
  assert.is(f.replicaById.get('m-0')!.lost, true);
});

test('a node unreachable since an unknown time is lost', () => {
  const f = build([down('n4', null, last)]);
  assert.is(f.nodeByName.get('n4')!.condition, 'lost');
  assert.is(f.nodeByName.get('n4')!.unreachableSince, null);
});

test('a config node missing from the snapshot is lost, with no GPUs', () => {
  const f = build([]);
  const n = f.nodeByName.get('n5')!;
  assert.is(n.condition, 'lost');
  assert.is(n.report, null);
  assert.equal(n.gpus, []);
});

test('state.json fills in an outage start the snapshot does not know', () => {
  const state = { ...emptyState(), unreachableSince: { n4: '2026-11-29T07:58:00Z' } };
  const f = build([down('n4', null, last)], state);
  assert.is(f.nodeByName.get('n4')!.condition, 'unreachable');
  assert.is(f.nodeByName.get('n4')!.unreachableSince, '2026-11-29T07:58:00Z');
});

test('cordoned comes from cluster.yaml, whatever the node says', () => {
  const c = config([nodeConfig('n1', { cordon: true })]);
  const f = buildFleet(c, snapshot([up('n1', report(gpus(1)))]), emptyState(), NOW);
  assert.is(f.nodeByName.get('n1')!.cordoned, true);
  assert.is(f.nodeByName.get('n1')!.condition, 'reachable');
});

test('snapshot nodes that cluster.yaml does not name are not part of the fleet', () => {
  const f = buildFleet(config([nodeConfig('n1')]), snapshot([up('n1', report(gpus(1))), up('zz', report(gpus(8)))]), emptyState(), NOW);
  assert.equal(
    f.nodes.map((n) => n.name),
    ['n1'],
  );
});

test('a config node missing from the snapshot says so as its error, and lists no replicas', () => {
  const n = build([]).nodeByName.get('n5')!;
  assert.equal([n.condition, n.error, n.unreachableSince, n.replicas], ['lost', 'not in the snapshot', null, []]);
  assert.is(n.freeWholeClass, null);
});

test.run();
