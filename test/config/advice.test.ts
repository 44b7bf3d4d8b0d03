// validate's hint about a model gpuClass that no GPU of the committed snapshot
// has (LoadOptions.advise with observedGpus): only when the snapshot saw GPUs,
// with a suggestion only when one is close.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseConfig } from '../../src/config/load-config.js';
import { formatProblem } from '../../src/errors.js';

const CLUSTER = `apiVersion: llmgw/v1
kind: Cluster
name: tiny
fabrics: [ib-a]
nodes:
  - { name: "n[1-2]", fabric: ib-a }
engines:
  vllm: { command: [vllm, serve], allowArgs: ["--*"] }
`;
const MODELS = `apiVersion: llmgw/v1
kind: Models
models:
  - { name: m, weights: org/m, engine: vllm, gpus: 2, gpuClass: MI300X }
`;

function hints(products: string[]): string[] {
  const r = parseConfig(
    { cluster: { name: 'cluster.yaml', text: CLUSTER }, models: { name: 'models.yaml', text: MODELS } },
    { env: { HOME: '/h', USER: 'u' }, advise: true, observedGpus: { file: '.llmgw/observed.json', products } },
  );
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

test.run();
