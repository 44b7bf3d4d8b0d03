import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildFleet, capacityByClass, fabricHolds, freeWholeNodes, modelCounts } from '../../src/fleet/index.js';
import { emptyState } from '../../src/types/state.js';
import type { StorageDecl } from '../../src/types/config.js';
import { NOW, config, gpus, nodeConfig, replica, report, snapshot, stored, up } from '../fixtures/index.js';

function fleetOf(n: number) {
  const storage: StorageDecl[] = [{ path: '/models', kind: 'local' }];
  const names = Array.from({ length: n }, (_, i) => `gpu${String(i).padStart(4, '0')}`);
  const c = config(names.map((name, i) => nodeConfig(name, { fabric: i % 2 ? 'ib-b' : 'ib-a', storage })));
  const snap = snapshot(names.map((name, i) => up(name, report(gpus(8), i % 3 ? [replica(`m-${i}`, [0, 1, 2, 3])] : [], [stored('/models', ['org/m'])]))));
  return { c, snap };
}

// How long this takes is `npm run bench:fleet`'s business (bench/fleet.ts); this
// file holds what a fleet this size must still get right.
test('2000 nodes x 8 GPUs: every GPU, replica, free whole node and holding is counted once', () => {
  const { c, snap } = fleetOf(2000);
  const f = buildFleet(c, snap, emptyState(), NOW);
  assert.is(f.nodes.length, 2000);
  // Nodes i % 3 != 0 run one 4-GPU replica: 1333 replicas, 5332 GPUs used.
  assert.equal(capacityByClass(f), [{ class: 'H100', total: 16000, used: 5332, free: 10668, unhealthy: 0, other: 0, unreachable: 0, cordoned: 0 }]);
  assert.is(f.replicas.length, 1333);
  // The idle nodes (i % 3 == 0) are whole and free: even ones on ib-a, odd ones on ib-b.
  assert.equal(
    [...freeWholeNodes(f)].map(([fabric, byClass]) => [fabric, [...byClass]]),
    [
      ['ib-a', [['H100', 334]]],
      ['ib-b', [['H100', 333]]],
    ],
  );
  // Replicas m-1, m-2, m-4, … all of model m, which models.yaml does not name.
  assert.equal(modelCounts(f), [{ name: 'm', desired: 0, running: 1333, starting: 0, failed: 0 }]);
  assert.is(fabricHolds(f, 'ib-a', 'org/m'), true);
  assert.is(fabricHolds(f, 'ib-b', 'org/none'), false);
});

test.run();
