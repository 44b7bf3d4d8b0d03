import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, golden } from '../helpers/golden.js';
import { planFleet } from '../../src/plan/plan-fleet.js';
import { renderPlanJson } from '../../src/views/plan/render-json.js';
import { emptyState } from '../../src/types/state.js';
import { makeFleet, type FleetIn } from '../fixtures/index.js';

function input(): FleetIn {
  const nodes = Array.from({ length: 24 }, (_, i) => ({
    name: `gpu-${String.fromCharCode(97 + (i % 3))}${String(i).padStart(2, '0')}`,
    fabric: `ib-${String.fromCharCode(97 + (i % 3))}`,
    unhealthy: i % 7 === 0 ? [2] : [],
    cordon: i === 5,
    holds: i % 4 === 0 ? ['org/big'] : [],
  }));
  return {
    nodes,
    replicas: [
      { id: 'small-0', model: 'small', ranks: [{ node: 'gpu-a00', gpus: [0] }] },
      { id: 'old-0', model: 'old', ranks: [{ node: 'gpu-b01', gpus: [0, 1] }] },
      { id: 'mid-3', model: 'mid', ranks: [{ node: 'gpu-c02', gpus: [0, 1, 2, 3] }], spec: 'oldspec' },
    ],
    models: [
      { name: 'small', gpus: 1, replicas: 9 },
      { name: 'mid', gpus: 4, replicas: 5 },
      { name: 'big', gpus: 8, nodes: 2, replicas: 3 },
      { name: 'huge', gpus: 8, nodes: 4, replicas: 3 },
    ],
  };
}

function shuffled<T>(items: T[], seed: number): T[] {
  const out = [...items];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) % 2147483648;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const GOLDEN = 'test/plan/golden/mixed-24.json';

test('a mixed 24-node fleet plans the golden plan JSON, byte-identical ten times over', () => {
  const first = renderPlanJson(planFleet(makeFleet(input()), emptyState()));
  golden(GOLDEN, first);
  for (let i = 0; i < 10; i++) assert.is(renderPlanJson(planFleet(makeFleet(input()), emptyState())), first);
});

test('shuffling the order of nodes and replicas handed in changes nothing: still the golden plan', () => {
  const expected = readFileSync(join(ROOT, GOLDEN), 'utf8');
  for (let seed = 1; seed <= 5; seed++) {
    const base = input();
    const fleet = makeFleet({ ...base, nodes: shuffled(base.nodes, seed), replicas: shuffled(base.replicas!, seed) });
    // Even a fleet whose node list is out of name order plans the same.
    const scrambled = { ...fleet, nodes: shuffled(fleet.nodes, seed + 100) };
    assert.is(renderPlanJson(planFleet(fleet, emptyState())), expected);
    assert.is(renderPlanJson(planFleet(scrambled, emptyState())), expected);
  }
});

test.run();
