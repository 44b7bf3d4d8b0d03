// resolveModels on plain data the schema has already judged: missing keys
// resolve to empty values and wrong-typed args are left out (the schema
// reports them); routing is carried only when it is one the routers know.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { resolveModels } from '../../src/config/resolve-models.js';
import { BUILT_IN_DEFAULTS } from '../../src/config/resolve-lifecycle.js';
import { formatProblem } from '../../src/errors.js';
import type { Raw } from '../../src/config/raw.js';
import type { Config } from '../../src/types/config.js';
import { CLUSTER, MODELS, STORAGE_CLUSTER, parsePair, problemsOf, replaced, validConfig, yamlOf } from '../fixtures/index.js';

function resolved(text: string) {
  const src = yamlOf('models.yaml', text);
  const ctx = { src, errors: [], engines: ['vllm'], argRules: undefined, defaults: BUILT_IN_DEFAULTS };
  const models = resolveModels(ctx, src.value as Raw);
  return { models, errors: ctx.errors.map(formatProblem) };
}

const parse = (cluster: string, models: string) => parsePair(cluster, models);
function configOf(models: string): Config {
  const r = parse(CLUSTER, models);
  if (!r.ok) throw new Error(r.errors.map(formatProblem).join('\n'));
  return r.config;
}

test('a model missing name, weights and engine resolves them to "" (the schema reports them), not to a made-up value', () => {
  const { models } = resolved('apiVersion: llmgw/v1\nkind: Models\nmodels:\n  - gpus: 2\n');
  assert.equal([models[0]!.name, models[0]!.weights, models[0]!.engine, models[0]!.gpus], ['', '', '', 2]);
  const named = resolved(MODELS).models[0]!;
  assert.equal([named.name, named.weights, named.engine], ['m', 'org/m', 'vllm']);
});

test('args keep only their string entries, in order', () => {
  const { models } = resolved(`${MODELS}    args: [--a, 5, --b]\n`);
  assert.equal(models[0]!.args, ['--a', '--b']);
});

test("routing: prefix and least-inflight are carried as written; absent or unknown leaves the routers' default (no key)", () => {
  assert.is(configOf(`${MODELS}    routing: prefix\n`).models[0]!.routing, 'prefix');
  assert.is(configOf(`${MODELS}    routing: least-inflight\n`).models[0]!.routing, 'least-inflight');
  assert.not.ok('routing' in configOf(MODELS).models[0]!);
  assert.not.ok('routing' in resolved(`${MODELS}    routing: random\n`).models[0]!);
});

test("an arg the engine does not allow, on a model without a name, names the model as ''", () => {
  const cluster = CLUSTER.replace('command: [vllm, serve]', 'command: [vllm, serve]\n    allowArgs: ["--dtype=*"]');
  const r = parse(cluster, 'apiVersion: llmgw/v1\nkind: Models\nmodels:\n  - weights: org/m\n    engine: vllm\n    gpus: 1\n    args: [--trust-remote-code]\n');
  assert.equal(r.ok ? [] : r.errors.map(formatProblem), [
    "models.yaml:4:5: models[0]: missing required key 'name'",
    "models.yaml:7:12: models[0].args[0]: model '': arg '--trust-remote-code' is not allowed by engine 'vllm' (no glob of its allowArgs matches)",
  ]);
});

test('weights may end in a slash or hold ./; only the storage path itself is refused', () => {
  assert.equal(problemsOf(STORAGE_CLUSTER, replaced(MODELS, 'weights: org/m', 'weights: meta/Llama-3.1-8B/')), []);
  assert.equal(problemsOf(STORAGE_CLUSTER, replaced(MODELS, 'weights: org/m', 'weights: org/./m')), []);
  assert.equal(problemsOf(STORAGE_CLUSTER, replaced(MODELS, 'weights: org/m', 'weights: ./')), [
    'models.yaml:5:14: models[0].weights: must be a directory under a storage path, not the storage path itself',
  ]);
});

test("a webhook's secret and a model's gpuClass are kept as written", () => {
  const c = validConfig(
    replaced(STORAGE_CLUSTER, 'name: test', 'name: test\nnotify:\n  webhooks:\n    - { url: "https://hooks.example/x", secret: s3cret }'),
    replaced(MODELS, 'gpus: 1', 'gpus: 1\n    gpuClass: H100'),
  );
  assert.equal(c.cluster.notify.webhooks, [{ url: 'https://hooks.example/x', secret: 's3cret' }]);
  assert.is(c.models[0]!.gpuClass, 'H100');
  assert.not.ok('gpuClass' in validConfig(STORAGE_CLUSTER, MODELS).models[0]!, 'no gpuClass written, none kept');
});

test.run();
