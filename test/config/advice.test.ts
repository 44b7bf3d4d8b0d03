// src/config/advice.ts: what `llmgw validate` advises beyond errors
// (LoadOptions.advise): an engine without allowArgs, and a model gpuClass that
// no GPU of the committed snapshot has (with observedGpus) — only when the
// snapshot saw GPUs, with a suggestion only when one is close.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { formatProblem } from '../../src/errors.js';
import { MODELS, ONE_GPU_MODELS, TINY_CLUSTER, TINY_MODELS, parsePair } from '../fixtures/index.js';

const ADVISED_CLUSTER = TINY_CLUSTER.replace('vllm: { command: [vllm, serve] }', 'vllm: { command: [vllm, serve], allowArgs: ["--*"] }');
const ADVISED_MODELS = TINY_MODELS.replace('gpus: 2 }', 'gpus: 2, gpuClass: MI300X }');
/** One flow-style model entry, and models.yaml with one block-style model whose extra lines are `extra`. */
const MODEL = '  - { name: m, weights: org/m, engine: vllm, gpus: 1 }\n';
const model = (extra: string) => MODELS + extra;

function hints(products: string[]): string[] {
  const r = parsePair(ADVISED_CLUSTER, ADVISED_MODELS, {
    env: { HOME: '/h', USER: 'u' },
    advise: true,
    observedGpus: { file: '.llmgw/observed.json', products },
  });
  assert.ok(r.ok, JSON.stringify(r));
  return r.warnings.map(formatProblem).filter((w) => !w.includes('no webhooks'));
}

test('a snapshot that saw no GPU at all gives no gpuClass hint: there is nothing to compare with', () => {
  assert.equal(hints([]), []);
});

test('a gpuClass with no class seen near it is warned about without a "did you mean"', () => {
  assert.equal(hints(['NVIDIA H100 80GB HBM3', 'NVIDIA A100-SXM4-80GB']), [
    "models.yaml:4:65: models[0].gpuClass: no GPU in .llmgw/observed.json has class 'MI300X'; classes seen: A100, H100",
  ]);
  assert.equal(hints(['MI300X OAM']), [], 'a class the snapshot has is no warning');
});

test('advise: each engine without allowArgs is one warning, however many models use it', () => {
  const cluster = TINY_CLUSTER.replace(
    'vllm: { command: [vllm, serve] }',
    'vllm: { command: [vllm, serve] }\n  sglang: { command: [sglang] }\n  strict: { command: [s], allowArgs: [] }',
  );
  const models = ONE_GPU_MODELS + MODEL.replace('name: m', 'name: m2') + MODEL.replace('name: m', 'name: m3').replace('vllm', 'sglang');
  const r = parsePair(cluster, models, { advise: true });
  assert.equal(r.warnings.map(formatProblem), [
    'cluster.yaml:1:1: notify.webhooks: no webhooks: a lost node or a model going down notifies nobody',
    'cluster.yaml:8:3: engines.vllm: no allowArgs: models.yaml may pass any argument to this engine (list the allowed ones as globs)',
    'cluster.yaml:9:3: engines.sglang: no allowArgs: models.yaml may pass any argument to this engine (list the allowed ones as globs)',
  ]);
  assert.equal(parsePair(cluster, models).warnings.length, 1, 'without advise (plan, status, reconcile) only the webhook warning');
});

test('advise: a gpuClass no GPU of the snapshot has is a warning listing the classes seen, with a suggestion', () => {
  const models = model('    gpuClass: H10O\n') + MODEL.replace('name: m', 'name: ok').replace('gpus: 1', 'gpus: 1, gpuClass: H100');
  const observedGpus = { file: '.llmgw/observed.json', products: ['NVIDIA H100 80GB HBM3', 'NVIDIA A100-SXM4-80GB'] };
  const r = parsePair(TINY_CLUSTER, models, { advise: true, observedGpus });
  assert.ok(r.ok, 'a warning, not an error: what the fleet holds is no validation matter');
  assert.equal(
    r.warnings.map(formatProblem).filter((w) => w.includes('gpuClass')),
    ["models.yaml:8:15: models[0].gpuClass: no GPU in .llmgw/observed.json has class 'H10O' (did you mean 'H100'?); classes seen: A100, H100"],
  );
  const none = parsePair(TINY_CLUSTER, models, { advise: true, observedGpus: null });
  assert.equal(
    none.warnings.map(formatProblem).filter((w) => w.includes('gpuClass')),
    [],
    'no snapshot: nothing to say',
  );
});

test.run();
