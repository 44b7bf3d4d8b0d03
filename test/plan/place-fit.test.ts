// The fit rule in placement (docs/placement.md#will-it-fit): a class the model
// does not fit is never used; without gpuClass any class it fits; "cannot be
// placed" names the numbers; a model of unknown size is placed as before.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { planFleet } from '../../src/plan/plan-fleet.js';
import { emptyState } from '../../src/types/state.js';
import { CONFIG_70B, W70, brief, makeFleet, type NodeSpec } from '../fixtures/fleet.js';

const SIZE = { [W70]: { bytes: 141_107_000_000, config: CONFIG_70B } };
const A100: Partial<NodeSpec> = { cls: 'A100', product: 'NVIDIA A100-SXM4-40GB', memoryMiB: 40960 };
const H100: Partial<NodeSpec> = { cls: 'H100', product: 'NVIDIA H100 80GB HBM3', memoryMiB: 81559 };

test('a class the model does not fit is never used: 70B on 4 GPUs skips the A100-40GB node that holds the weights for an H100', () => {
  // 4 × A100-40GB: 32.9 GiB of weights + 1 GiB leave 2.2 GiB of 36 GiB, short of a 10 GiB sequence; 4 × H100 fit 3.
  const fleet = makeFleet({
    nodes: [
      { name: 'a1', ...A100, holds: [W70], sizes: SIZE },
      { name: 'h1', ...H100 },
    ],
    models: [{ name: 'llama-70b', weights: W70, gpus: 4 }],
  });
  const plan = planFleet(fleet, emptyState());
  assert.equal(plan.actions.map(brief), ['start llama-70b-0 h1']);
  assert.equal(plan.unplaceable, []);
});

test('gpuClass A100 that it does not fit: cannot be placed, with the numbers', () => {
  const fleet = makeFleet({
    nodes: [{ name: 'a1', ...A100, holds: [W70], sizes: SIZE }],
    models: [{ name: 'llama-70b', weights: W70, gpus: 2, gpuClass: 'A100' }],
  });
  const plan = planFleet(fleet, emptyState());
  assert.equal(plan.actions, []);
  assert.equal(plan.unplaceable, [
    {
      model: 'llama-70b',
      missing: 1,
      reason: 'needs 65.7 GiB per GPU for weights + 1 GiB + 20.0 GiB KV for 131072 tokens; NVIDIA A100-SXM4-40GB gives 36.0 GiB at 0.9',
    },
  ]);
});

test('the same model on 4 GPUs of 80 GB is placed', () => {
  const fleet = makeFleet({
    nodes: [{ name: 'h1', ...H100, holds: [W70], sizes: SIZE }],
    models: [{ name: 'llama-70b', weights: W70, gpus: 4, gpuClass: 'H100' }],
  });
  assert.equal(planFleet(fleet, emptyState()).actions.map(brief), ['start llama-70b-0 h1']);
});

test('without gpuClass and no class it fits: the reason names every class the fleet has', () => {
  const fleet = makeFleet({
    nodes: [
      { name: 'a1', ...A100, holds: [W70], sizes: SIZE },
      { name: 'l1', cls: 'L4', product: 'NVIDIA L4', memoryMiB: 23034 },
    ],
    models: [{ name: 'llama-70b', weights: W70, gpus: 2 }],
  });
  const plan = planFleet(fleet, emptyState());
  assert.equal(plan.actions, []);
  assert.is(
    plan.unplaceable[0]!.reason,
    'needs 65.7 GiB per GPU for weights + 1 GiB + 20.0 GiB KV for 131072 tokens; NVIDIA A100-SXM4-40GB gives 36.0 GiB at 0.9, NVIDIA L4 gives 20.2 GiB at 0.9',
  );
});

test('weights that fit but no full sequence: the reason says the longest maxModelLen that would', () => {
  // 8 A100-40GB: 141.107e9 / 8 = 16.43 GiB + 1 GiB of 36 GiB leaves 18.57 GiB; a 131072-token sequence needs
  // 327680 × 131072 / 8 = 5 GiB, so this one fits. With maxModelLen 1,000,000 (beyond the model's own 131072) it does not.
  const fleet = makeFleet({
    nodes: [{ name: 'a1', ...A100, holds: [W70], sizes: SIZE }],
    models: [{ name: 'llama-70b', weights: W70, gpus: 8, maxModelLen: 1_000_000 }],
  });
  const reason = planFleet(fleet, emptyState()).unplaceable[0]!.reason;
  assert.match(
    reason,
    /^needs 16\.4 GiB per GPU for weights \+ 1 GiB \+ 38\.1 GiB KV for 1000000 tokens; NVIDIA A100-SXM4-40GB gives 36\.0 GiB at 0\.9; at most 131072 tokens fit \(maxModelLen\)$/,
  );
});

test('a model of unknown size (no holding, no weightsBytes) is placed as before', () => {
  const fleet = makeFleet({
    nodes: [{ name: 'a1', ...A100 }],
    models: [{ name: 'llama-70b', weights: W70, gpus: 2 }],
  });
  assert.equal(planFleet(fleet, emptyState()).actions.map(brief), ['start llama-70b-0 a1']);
});

test('weightsBytes stands in for weights no node holds: judged on the weights alone', () => {
  const fleet = makeFleet({
    nodes: [
      { name: 'a1', ...A100 },
      { name: 'h1', ...H100 },
    ],
    models: [{ name: 'big', weights: 'org/big', gpus: 1, weightsBytes: 50 * 2 ** 30 }],
  });
  assert.equal(planFleet(fleet, emptyState()).actions.map(brief), ['start big-0 h1']);
});

test('a node that does not report its memory is not judged: unknown is not "does not fit"', () => {
  const fleet = makeFleet({
    nodes: [{ name: 'a1', cls: 'A100', product: 'NVIDIA A100-SXM4-40GB', holds: [W70], sizes: SIZE }],
    models: [{ name: 'llama-70b', weights: W70, gpus: 2 }],
  });
  assert.equal(planFleet(fleet, emptyState()).actions.map(brief), ['start llama-70b-0 a1']);
});

test('multi-node: whole nodes of a class it does not fit are no pool', () => {
  const fleet = makeFleet({
    nodes: [
      { name: 'a1', ...A100, gpus: 1, holds: [W70], sizes: SIZE },
      { name: 'a2', ...A100, gpus: 1 },
      { name: 'h1', ...H100, gpus: 1, fabric: 'ib-b' },
      { name: 'h2', ...H100, gpus: 1, fabric: 'ib-b' },
    ],
    models: [{ name: 'llama-70b', weights: W70, gpus: 1, nodes: 2, maxModelLen: 8192 }],
  });
  // On 2 × 1 GPU: 65.7 GiB of weights per GPU fit 71.68 GiB of an H100 with 5 GiB to spare, never 36 GiB of an A100.
  assert.equal(planFleet(fleet, emptyState()).actions.map(brief), ['start llama-70b-0 h1+h2']);
});

test('the reason gives each class at the model`s own gpuMemoryUtilization when models.yaml sets one', () => {
  const fleet = makeFleet({
    nodes: [{ name: 'a1', ...A100, holds: [W70], sizes: SIZE }],
    models: [{ name: 'llama-70b', weights: W70, gpus: 2, gpuClass: 'A100', gpuMemoryUtilization: 0.8 }],
  });
  const [u] = planFleet(fleet, emptyState()).unplaceable;
  assert.match(u?.reason ?? '', /; NVIDIA A100-SXM4-40GB gives 32\.0 GiB at 0\.8$/);
});

test.run();
