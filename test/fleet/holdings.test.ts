import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildFleet, fabricHoldings, fabricHolds } from '../../src/fleet/index.js';
import { emptyState } from '../../src/types/state.js';
import type { StorageDecl } from '../../src/types/config.js';
import { NOW, config, down, gpus, nodeConfig, report, snapshot, stored, up } from '../fixtures/index.js';

const W = 'meta-llama/Llama-3.1-70B-Instruct';
const both: StorageDecl[] = [
  { path: '/models', kind: 'local' },
  { path: '/lustre/models', kind: 'shared', filer: 'lustre-a' },
];

test('a shared filer is listed once however many nodes see it; local copies by node', () => {
  const c = config([nodeConfig('a1', { storage: both }), nodeConfig('a2', { storage: both }), nodeConfig('a3', { storage: both })]);
  const f = buildFleet(
    c,
    snapshot([
      up('a1', report(gpus(1), [], [stored('/models', [W]), stored('/lustre/models', [W], 'shared', 'lustre-a')])),
      up('a2', report(gpus(1), [], [stored('/models', []), stored('/lustre/models', [W], 'shared', 'lustre-a')])),
      up('a3', report(gpus(1), [], [stored('/models', [W]), stored('/lustre/models', [W], 'shared', 'lustre-a')])),
    ]),
    emptyState(),
    NOW,
  );
  assert.equal(fabricHoldings(f, 'ib-a', W), { held: true, shared: ['lustre-a'], localNodes: ['a1', 'a3'] });
  assert.is(f.nodeByName.get('a2')!.holds.has(W), true);
});

test('local or shared is what cluster.yaml declares, never what the report claims', () => {
  const c = config([nodeConfig('a1', { storage: [{ path: '/models', kind: 'local' }] })]);
  const f = buildFleet(c, snapshot([up('a1', report(gpus(1), [], [stored('/models', [W], 'shared', 'fake-filer')]))]), emptyState(), NOW);
  assert.equal(fabricHoldings(f, 'ib-a', W), { held: true, shared: [], localNodes: ['a1'] });
});

test('a report entry for a path cluster.yaml did not declare is ignored', () => {
  const c = config([nodeConfig('a1', { storage: [{ path: '/models', kind: 'local' }] })]);
  const f = buildFleet(c, snapshot([up('a1', report(gpus(1), [], [stored('/models', []), stored('/tmp/evil', [W])]))]), emptyState(), NOW);
  assert.is(f.nodeByName.get('a1')!.holds.has(W), false);
  assert.is(fabricHolds(f, 'ib-a', W), false);
});

test('a node never told to look holds nothing, exactly like one that looked and found nothing', () => {
  const c = config([nodeConfig('told', { storage: [{ path: '/models', kind: 'local' }] }), nodeConfig('untold')]);
  const f = buildFleet(
    c,
    snapshot([up('told', report(gpus(1), [], [stored('/models', [])])), up('untold', report(gpus(1), [], [stored('/models', [W])]))]),
    emptyState(),
    NOW,
  );
  assert.equal([...f.nodeByName.get('told')!.holds], []);
  assert.equal([...f.nodeByName.get('untold')!.holds], []);
  assert.equal(fabricHoldings(f, 'ib-a', W), { held: false, shared: [], localNodes: [] });
});

test('a fabric holds weights when any of its nodes does; another fabric does not', () => {
  const c = config([nodeConfig('a1', { storage: both }), nodeConfig('b1', { fabric: 'ib-b', storage: both })]);
  const f = buildFleet(
    c,
    snapshot([up('a1', report(gpus(1), [], [stored('/models', [W])])), up('b1', report(gpus(1), [], [stored('/models', [])]))]),
    emptyState(),
    NOW,
  );
  assert.is(fabricHolds(f, 'ib-a', W), true);
  assert.is(fabricHolds(f, 'ib-b', W), false);
});

test('a lost node holds nothing for its fabric; an unreachable one still does', () => {
  const c = config([nodeConfig('a1', { storage: both }), nodeConfig('b1', { fabric: 'ib-b', storage: both })]);
  const r = report(gpus(1), [], [stored('/models', [W])]);
  const f = buildFleet(c, snapshot([down('a1', null, r), down('b1', '2026-11-29T07:59:00Z', r)]), emptyState(), NOW);
  assert.is(fabricHolds(f, 'ib-a', W), false);
  assert.is(fabricHolds(f, 'ib-b', W), true);
});

test('the filers that hold weights in a fabric are listed sorted, whichever node saw them first', () => {
  const c = config([
    nodeConfig('a1', { storage: [{ path: '/z', kind: 'shared', filer: 'zeta' }] }),
    nodeConfig('a2', { storage: [{ path: '/a', kind: 'shared', filer: 'alpha' }] }),
  ]);
  const f = buildFleet(
    c,
    snapshot([up('a1', report(gpus(1), [], [stored('/z', [W], 'shared', 'zeta')])), up('a2', report(gpus(1), [], [stored('/a', [W], 'shared', 'alpha')]))]),
    emptyState(),
    NOW,
  );
  assert.equal(fabricHoldings(f, 'ib-a', W), { held: true, shared: ['alpha', 'zeta'], localNodes: [] });
});

test.run();
