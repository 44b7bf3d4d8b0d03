// docs/placement.md#will-it-fit, what the fit is judged by: a class's memory is
// its smallest GPU (a tie goes to the product name first in order), GPUs that
// report no memory do not count, a holding's size only when the node holds the
// weights, lists them and reports a positive byte count (the first node in
// name order wins), and models.yaml's gpus × nodes, maxModelLen and
// kvCacheDtype reach the rule. Models and classes come sorted by name.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { GIB } from '../../src/fleet/fit.js';
import { fitReport, fitWarnings, fleetFit, modelFit } from '../../src/fleet/fit-report.js';
import type { Fleet } from '../../src/types/fleet.js';
import { planModel } from '../fixtures/fleet.js';

interface G {
  cls: string;
  name: string;
  memoryMiB?: number;
}
interface N {
  name: string;
  gpus?: G[];
  holds?: string[];
  storage?: { weights: string[]; sizes?: Record<string, unknown> }[];
}

function fleetOf(nodes: N[], models: Parameters<typeof planModel>[0][] = []): Fleet {
  return {
    config: { models: models.map(planModel) },
    nodes: nodes.map((n) => ({
      name: n.name,
      gpus: (n.gpus ?? []).map((g, index) => ({ index, class: g.cls, name: g.name, ...(g.memoryMiB !== undefined ? { memoryMiB: g.memoryMiB } : {}) })),
      holds: new Set(n.holds ?? []),
      report: { storage: n.storage ?? [] },
    })),
  } as unknown as Fleet;
}

test("a class's memory is its smallest GPU's, whichever order they come in", () => {
  for (const order of [
    [80, 40],
    [40, 80],
  ]) {
    const ff = fleetFit(fleetOf([{ name: 'a', gpus: order.map((m) => ({ cls: 'A100', name: `A100-${String(m)}GB`, memoryMiB: m * 1024 })) }]));
    assert.equal([...ff.classes.values()], [{ cls: 'A100', product: 'A100-40GB', memoryMiB: 40 * 1024 }]);
  }
});

test('two GPUs of the same memory: the product name first in order names the class, in either order', () => {
  for (const names of [
    ['B-card', 'A-card'],
    ['A-card', 'B-card'],
  ]) {
    const ff = fleetFit(fleetOf([{ name: 'a', gpus: names.map((name) => ({ cls: 'X', name, memoryMiB: 1024 })) }]));
    assert.is(ff.classes.get('X')?.product, 'A-card');
  }
});

test('a larger GPU never names the class, even with a product name first in order', () => {
  const ff = fleetFit(
    fleetOf([
      {
        name: 'a',
        gpus: [
          { cls: 'A100', name: 'B-40GB', memoryMiB: 40960 },
          { cls: 'A100', name: 'A-80GB', memoryMiB: 81920 },
        ],
      },
    ]),
  );
  assert.equal(ff.classes.get('A100'), { cls: 'A100', product: 'B-40GB', memoryMiB: 40960 });
});

test('a GPU that reports no memory does not count; a class with none is not listed', () => {
  const ff = fleetFit(
    fleetOf([
      {
        name: 'a',
        gpus: [
          { cls: 'H100', name: 'H100' },
          { cls: 'H100', name: 'H100', memoryMiB: 81559 },
          { cls: 'OLD', name: 'K80' },
        ],
      },
    ]),
  );
  assert.equal([...ff.classes.keys()], ['H100']);
  assert.is(ff.classes.get('H100')?.memoryMiB, 81559);
});

test('classes come sorted by name, whatever order the nodes show them in', () => {
  const ff = fleetFit(
    fleetOf([
      { name: 'a', gpus: [{ cls: 'L40S', name: 'L40S', memoryMiB: 46068 }] },
      { name: 'b', gpus: [{ cls: 'A100', name: 'A100', memoryMiB: 40960 }] },
      { name: 'c', gpus: [{ cls: 'H100', name: 'H100', memoryMiB: 81559 }] },
    ]),
  );
  assert.equal([...ff.classes.keys()], ['A100', 'H100', 'L40S']);
});

test("a holding's size counts only when the node holds the weights, lists them, and reports positive bytes; the first node wins", () => {
  const ff = fleetFit(
    fleetOf([
      { name: 'a', holds: ['w1', 'w3'], storage: [{ weights: ['w1', 'w2', 'w3'], sizes: { w1: { bytes: 100 }, w2: { bytes: 200 }, w3: { bytes: 300 } } }] },
      { name: 'b', holds: ['w1', 'w2', 'w4'], storage: [{ weights: ['w1', 'w2'], sizes: { w1: { bytes: 999 }, w2: { bytes: 222 }, w4: { bytes: 444 } } }] },
      {
        name: 'c',
        holds: ['z0', 'zn', 'zs', 'zu', 'zz'],
        storage: [{ weights: ['z0', 'zn', 'zs', 'zu', 'zz'], sizes: { z0: { bytes: 0 }, zn: { bytes: -5 }, zs: { bytes: '7' }, zu: null, zz: {} } }],
      },
    ]),
  );
  assert.equal(Object.fromEntries([...ff.sizes].map(([w, s]) => [w, s.bytes])), { w1: 100, w3: 300, w2: 222 });
  assert.is(ff.sizes.get('w1')?.shape, null);
});

test("models.yaml's gpus × nodes, maxModelLen and kvCacheDtype reach the rule", () => {
  const shape = { num_hidden_layers: 1, num_attention_heads: 8, num_key_value_heads: 8, head_dim: 1, max_position_embeddings: 1 << 20 };
  const size = { bytes: 8 * GIB, shape };
  const two = modelFit(planModel({ name: 'm', weights: 'w', gpus: 2, nodes: 2 }, 0), size, 80 * 1024);
  assert.is(two.weightsBytesPerGpu, 2 * GIB, 'spread over 4 GPUs');
  const len = modelFit(planModel({ name: 'm', weights: 'w', gpus: 1, maxModelLen: 1000 }, 0), size, 80 * 1024);
  assert.is(len.tokens, 1000);
  const bf16 = modelFit(planModel({ name: 'm', weights: 'w', gpus: 1, maxModelLen: 1000 }, 0), size, 80 * 1024);
  const fp8 = modelFit(planModel({ name: 'm', weights: 'w', gpus: 1, maxModelLen: 1000, kvCacheDtype: 'fp8' }, 0), size, 80 * 1024);
  assert.is(bf16.kvBytesPerGpu, 2 * 8 * 2 * 1000);
  assert.is(fp8.kvBytesPerGpu, 2 * 8 * 1 * 1000);
});

test('fitReport lists models by name; fitWarnings too, and only for models that run replicas', () => {
  const f = fleetOf(
    [{ name: 'a', gpus: [{ cls: 'H100', name: 'H100', memoryMiB: 81559 }] }],
    [
      { name: 'zeta', weights: 'wz', gpus: 1 },
      { name: 'alpha', weights: 'wa', gpus: 1 },
      { name: 'mid', weights: 'wm', gpus: 1, weightsBytes: GIB },
      { name: 'idle', weights: 'wi', gpus: 1, replicas: 0 },
    ],
  );
  assert.equal(Object.keys(fitReport(f)), ['alpha', 'idle', 'mid', 'zeta']);
  assert.equal(
    fitWarnings(f).map((w) => w.slice(0, w.indexOf(':'))),
    ["model 'alpha'", "model 'zeta'"],
  );
});

test.run();
