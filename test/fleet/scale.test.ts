import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildFleet, capacityByClass, fabricHolds, freeWholeNodes, modelCounts } from '../../src/fleet/index.js';
import { emptyState } from '../../src/types/state.js';
import type { StorageDecl } from '../../src/types/config.js';
import { NOW, config, gpus, nodeConfig, replica, report, snapshot, stored, up } from './fixtures.js';

test('2000 nodes x 8 GPUs build in a few milliseconds (no quadratic scans)', () => {
  const storage: StorageDecl[] = [{ path: '/models', kind: 'local' }];
  const names = Array.from({ length: 2000 }, (_, i) => `gpu${String(i).padStart(4, '0')}`);
  const c = config(names.map((n, i) => nodeConfig(n, { fabric: i % 2 ? 'ib-b' : 'ib-a', storage })));
  const snap = snapshot(names.map((n, i) => up(n, report(gpus(8), i % 3 ? [replica(`m-${i}`, [0, 1, 2, 3])] : [], [stored('/models', ['org/m'])]))));
  for (let i = 0; i < 10; i++) buildFleet(c, snap, emptyState(), NOW); // warm up the JIT
  const runs: number[] = [];
  let f = buildFleet(c, snap, emptyState(), NOW);
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    f = buildFleet(c, snap, emptyState(), NOW);
    capacityByClass(f);
    freeWholeNodes(f);
    modelCounts(f);
    fabricHolds(f, 'ib-a', 'org/m');
    runs.push(performance.now() - t);
  }
  const median = runs.sort((a, b) => a - b)[2];
  assert.is(f.nodes.length, 2000);
  assert.is(capacityByClass(f)[0].total, 16000);
  assert.ok(median < 100, `median ${median.toFixed(1)} ms`);
  console.log(`buildFleet 2000x8: median ${median.toFixed(1)} ms`);
});

test.run();
