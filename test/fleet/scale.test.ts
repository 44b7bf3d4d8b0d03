import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildFleet, capacityByClass, fabricHolds, freeWholeNodes, modelCounts } from '../../src/fleet/index.js';
import { emptyState } from '../../src/types/state.js';
import type { StorageDecl } from '../../src/types/config.js';
import { NOW, config, gpus, nodeConfig, replica, report, snapshot, stored, up } from './fixtures.js';

function fleetOf(n: number) {
  const storage: StorageDecl[] = [{ path: '/models', kind: 'local' }];
  const names = Array.from({ length: n }, (_, i) => `gpu${String(i).padStart(4, '0')}`);
  const c = config(names.map((name, i) => nodeConfig(name, { fabric: i % 2 ? 'ib-b' : 'ib-a', storage })));
  const snap = snapshot(names.map((name, i) => up(name, report(gpus(8), i % 3 ? [replica(`m-${i}`, [0, 1, 2, 3])] : [], [stored('/models', ['org/m'])]))));
  return { c, snap };
}

/** Fastest of several runs: on a shared machine the minimum is what the code costs. */
function fastest(n: number): number {
  const { c, snap } = fleetOf(n);
  for (let i = 0; i < 5; i++) buildFleet(c, snap, emptyState(), NOW); // warm up the JIT
  let best = Infinity;
  for (let i = 0; i < 7; i++) {
    const t = performance.now();
    const f = buildFleet(c, snap, emptyState(), NOW);
    capacityByClass(f);
    freeWholeNodes(f);
    modelCounts(f);
    fabricHolds(f, 'ib-a', 'org/m');
    best = Math.min(best, performance.now() - t);
  }
  return best;
}

test('2000 nodes x 8 GPUs build in milliseconds (no quadratic scans)', () => {
  const { c, snap } = fleetOf(2000);
  const f = buildFleet(c, snap, emptyState(), NOW);
  assert.is(f.nodes.length, 2000);
  assert.is(capacityByClass(f)[0].total, 16000);
  const large = fastest(2000);
  console.log(`buildFleet + aggregates, 2000 nodes x 8 GPUs: ${large.toFixed(1)} ms`);
  // Generous for a shared machine; a scan per GPU over all GPUs would take seconds.
  assert.ok(large < 100, `2000 nodes took ${large.toFixed(1)} ms`);
});

test.run();
