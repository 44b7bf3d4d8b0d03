// `fit` of plan and status JSON (docs/placement.md#will-it-fit): every model on
// every GPU class of the fleet its gpuClass allows; null when its size is unknown.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fitReport, fitWarnings } from '../../src/fleet/fit-report.js';
import { CONFIG_70B, W70, makeFleet } from '../fixtures/fleet.js';

function fleet(models: Parameters<typeof makeFleet>[0]['models'], config: Record<string, unknown> | null = CONFIG_70B) {
  return makeFleet({
    nodes: [
      { name: 'a1', cls: 'A100', product: 'NVIDIA A100-SXM4-40GB', memoryMiB: 40960, holds: [W70], sizes: { [W70]: { bytes: 141_107_000_000, config } } },
      { name: 'h1', cls: 'H100', product: 'NVIDIA H100 80GB HBM3', memoryMiB: 81559 },
    ],
    models,
  });
}

test('each class the model may use, with the fit rule worked out: 4 GPUs of 80 GB hold 3 full sequences, of 40 GB none', () => {
  // H100: 71.68 GiB − 32.85 − 1 = 37.83 GiB for 10 GiB sequences: 3; the longest that fits is capped at 131072.
  // A100: 38,654,705,664 − 35,276,750,000 − 1 GiB = 2,304,213,840 bytes, / 81,920 per token per GPU = 28,127 tokens.
  assert.equal(fitReport(fleet([{ name: 'llama-70b', weights: W70, gpus: 4 }])), {
    'llama-70b': {
      A100: { fits: false, weightsGiBPerGpu: 32.85, kvGiBPerGpu: 10, maxModelLen: 28127, sequences: 0 },
      H100: { fits: true, weightsGiBPerGpu: 32.85, kvGiBPerGpu: 10, maxModelLen: 131072, sequences: 3 },
    },
  });
});

test('gpuClass limits the classes listed', () => {
  assert.equal(Object.keys(fitReport(fleet([{ name: 'llama-70b', weights: W70, gpus: 4, gpuClass: 'H100' }]))['llama-70b']!), ['H100']);
});

test('without a config.json: judged on the weights alone, KV, maxModelLen and sequences null', () => {
  assert.equal(fitReport(fleet([{ name: 'llama-70b', weights: W70, gpus: 4, gpuClass: 'H100' }], null)), {
    'llama-70b': { H100: { fits: true, weightsGiBPerGpu: 32.85, kvGiBPerGpu: null, maxModelLen: null, sequences: null } },
  });
});

test('unknown size: fit null and a warning saying how to make it known; weightsBytes makes it known', () => {
  const f = fleet([
    { name: 'x', weights: 'org/x', gpus: 1 },
    { name: 'y', weights: 'org/y', gpus: 1, weightsBytes: 10 * 2 ** 30 },
  ]);
  const report = fitReport(f);
  assert.is(report.x, null);
  assert.equal(report.y, {
    A100: { fits: true, weightsGiBPerGpu: 10, kvGiBPerGpu: null, maxModelLen: null, sequences: null },
    H100: { fits: true, weightsGiBPerGpu: 10, kvGiBPerGpu: null, maxModelLen: null, sequences: null },
  });
  assert.equal(fitWarnings(f), [
    "model 'x': its size is unknown (no node holds org/x), so the plan cannot tell whether it fits: set weightsBytes in models.yaml, or put the weights where a node looks",
  ]);
});

test.run();
