// models.yaml's on-demand keys (docs/config.md#on-demand-models): `replicas` as a
// number or a {min, max} range, targetInflight, scaleDownAfter, waitTimeout and
// adapters, what they resolve to, and validate's refusals, one line each.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MODELS, TINY_CLUSTER, problemsOf, validConfig } from '../fixtures/index.js';

const model = (extra: string) => validConfig(TINY_CLUSTER, MODELS + extra).models[0]!;
const errors = (extra: string) => problemsOf(TINY_CLUSTER, MODELS + extra);

test('a number stays a fixed count: no scale', () => {
  const m = model('    replicas: 3\n');
  assert.equal([m.replicas, m.scale], [3, undefined]);
});

test('a range: its min until a tick decides, targetInflight 32 and scaleDownAfter unset (idle.after) by default', () => {
  const m = model('    replicas: {min: 0, max: 4}\n');
  assert.equal(m.replicas, 0);
  assert.equal(m.scale, { min: 0, max: 4, targetInflight: 32 });
});

test('targetInflight, scaleDownAfter and waitTimeout are read as given', () => {
  const m = model('    replicas: {min: 1, max: 2}\n    targetInflight: 8\n    scaleDownAfter: 90s\n    waitTimeout: 2m\n');
  assert.equal(m.scale, { min: 1, max: 2, targetInflight: 8, scaleDownAfterMs: 90_000 });
  assert.equal(m.waitTimeoutMs, 120_000);
});

test('min above max is refused', () => {
  assert.equal(errors('    replicas: {min: 3, max: 2}\n'), ['models.yaml:8:15: models[0].replicas: min (3) must be at most max (2)']);
});

test('max 0, a negative min, a missing max and an unknown key in the range are refused', () => {
  assert.ok(errors('    replicas: {min: 0, max: 0}\n').some((e) => e.includes('models[0].replicas.max')));
  assert.ok(errors('    replicas: {min: -1, max: 2}\n').some((e) => e.includes('models[0].replicas.min')));
  assert.ok(errors('    replicas: {min: 1}\n').some((e) => e.includes('max')));
  assert.ok(errors('    replicas: {min: 0, max: 2, step: 1}\n').some((e) => e.includes('step')));
  assert.ok(errors('    replicas: -1\n').some((e) => e.includes('models[0].replicas')));
});

test('adapters are read with their weights', () => {
  const m = model('    adapters: [{name: sql-lora, weights: org/sql-lora}]\n');
  assert.equal(m.adapters, [{ name: 'sql-lora', weights: 'org/sql-lora' }]);
});

test('an adapter named like a model is a validation error, and so is a weights path that leaves the storage path', () => {
  assert.equal(errors('    adapters: [{name: m, weights: org/x}]\n'), [
    "models.yaml:8:23: models[0].adapters[0].name: adapter 'm' has the name of a model: requests could not tell them apart",
  ]);
  assert.ok(errors('    adapters: [{name: a, weights: ../x}]\n').some((e) => e.includes('models[0].adapters[0].weights')));
});

test.run();
