// docs/placement.md#will-it-fit, at its edges: which config.json values the
// rule takes (positive integers, strings, a top-level quant_method), every
// dtype spelling, a shape missing one field the KV cache needs, and fitOn on
// the boundaries (weights that exactly fill the budget, a KV cache that exactly
// fills what is left, a length without a shape to hold it, no max_position_embeddings).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { dtypeBytes, fitOn, GIB, kvBytesPerToken, shapeOf } from '../../src/fleet/fit.js';

test('shapeOf: no object is no shape, whatever the value', () => {
  const values: unknown[] = [undefined, null, 42, 'config', [], [{ num_hidden_layers: 2 }]];
  values.forEach((v, i) => {
    assert.is(shapeOf(v), null, `value ${String(i)}`);
  });
  assert.is(shapeOf({ text_config: undefined }), null);
});

test('shapeOf keeps only positive integers: 0, negatives, fractions and numbers as text are left out', () => {
  assert.equal(shapeOf({ num_hidden_layers: 0, num_attention_heads: -8, num_key_value_heads: 1.5, hidden_size: '4096', head_dim: 128 }), { head_dim: 128 });
  assert.equal(shapeOf({ num_hidden_layers: 1, max_position_embeddings: 2 ** 53 }), { num_hidden_layers: 1 });
});

test('a quant_method at the top level counts when there is no quantization_config', () => {
  assert.equal(shapeOf({ quant_method: 'awq' }), { quant_method: 'awq' });
  assert.equal(shapeOf({ quantization_config: { quant_method: 'fp8' }, quant_method: 'awq' }), { quant_method: 'fp8' });
  assert.equal(shapeOf({ quantization_config: 'fp8', quant_method: 'awq' }), { quant_method: 'awq' });
});

test('every 16-bit and 32-bit spelling vLLM knows', () => {
  for (const n of ['bfloat16', 'float16', 'half', 'bf16', 'fp16', 'torch.bfloat16', 'BF16', 'FP16']) assert.is(dtypeBytes(n), 2, n);
  for (const n of ['float32', 'float', 'fp32', 'torch.float32', 'FP32']) assert.is(dtypeBytes(n), 4, n);
  for (const n of ['fp8', 'fp8_e4m3', 'float8_e5m2']) assert.is(dtypeBytes(n), 1, n);
  for (const n of ['int8', 'auto', 'bf', 'fp', '']) assert.is(dtypeBytes(n), null, n);
});

test('the KV cache needs layers, kv heads and a head size: missing any one, it cannot be computed', () => {
  const full = { num_hidden_layers: 2, num_attention_heads: 4, num_key_value_heads: 2, head_dim: 8 };
  assert.is(kvBytesPerToken(full), 2 * 2 * 2 * 8 * 2);
  assert.is(kvBytesPerToken({ ...full, num_hidden_layers: undefined }), null);
  assert.is(kvBytesPerToken({ num_hidden_layers: 2, head_dim: 8 }), null, 'neither kv heads nor heads');
  assert.is(kvBytesPerToken({ num_hidden_layers: 2, num_attention_heads: 4, num_key_value_heads: 2 }), null, 'no head_dim and no hidden_size');
  assert.is(kvBytesPerToken({ num_hidden_layers: 2, num_key_value_heads: 2, hidden_size: 32 }), null, 'hidden_size without heads gives no head size');
  assert.is(kvBytesPerToken({ num_hidden_layers: 2, num_attention_heads: 4, hidden_size: 32 }), 2 * 2 * 4 * 8 * 2);
});

test('kvCacheDtype auto, or none, keeps the model dtype; a named one replaces it', () => {
  const s = { num_hidden_layers: 1, num_attention_heads: 1, head_dim: 1, torch_dtype: 'float32' };
  assert.is(kvBytesPerToken(s), 8);
  assert.is(kvBytesPerToken(s, 'auto'), 8);
  assert.is(kvBytesPerToken(s, 'fp8'), 2);
});

// 4 bytes a token: 2 × 1 layer × 1 kv head × head_dim 1 × 2 bytes.
const tiny = { num_hidden_layers: 1, num_attention_heads: 1, num_key_value_heads: 1, head_dim: 1 };

test('weights that exactly fill the budget less the overhead fit (without a shape)', () => {
  const f = fitOn({ weightsBytes: 9 * GIB, shape: null, gpus: 1, gpuMemoryBytes: 10 * GIB, utilization: 1 });
  assert.is(f.fits, true);
  assert.is(fitOn({ weightsBytes: 9 * GIB + 1, shape: null, gpus: 1, gpuMemoryBytes: 10 * GIB, utilization: 1 }).fits, false);
});

test('a KV cache that exactly fills what the weights leave fits, with exactly one sequence', () => {
  const f = fitOn({ weightsBytes: GIB, shape: tiny, gpus: 1, gpuMemoryBytes: 2 * GIB + 4096, utilization: 1, maxModelLen: 1024 });
  assert.equal(f, { fits: true, weightsBytesPerGpu: GIB, kvBytesPerGpu: 4096, tokens: 1024, budgetBytes: 2 * GIB + 4096, maxModelLen: 1024, sequences: 1 });
  assert.is(fitOn({ weightsBytes: GIB, shape: tiny, gpus: 1, gpuMemoryBytes: 2 * GIB + 4095, utilization: 1, maxModelLen: 1024 }).fits, false);
});

test('a length but no shape to hold it, or a shape but no length: only the weights are judged', () => {
  const noKv = fitOn({ weightsBytes: GIB, shape: { max_position_embeddings: 4096 }, gpus: 1, gpuMemoryBytes: 4 * GIB, utilization: 1 });
  assert.equal(noKv, { fits: true, weightsBytesPerGpu: GIB, kvBytesPerGpu: null, tokens: 4096, budgetBytes: 4 * GIB, maxModelLen: null, sequences: null });
  const noLen = fitOn({ weightsBytes: GIB, shape: tiny, gpus: 1, gpuMemoryBytes: 4 * GIB, utilization: 1 });
  assert.equal(noLen, { fits: true, weightsBytesPerGpu: GIB, kvBytesPerGpu: null, tokens: null, budgetBytes: 4 * GIB, maxModelLen: null, sequences: null });
});

test('without max_position_embeddings the longest length that fits is not capped', () => {
  const f = fitOn({ weightsBytes: GIB, shape: tiny, gpus: 1, gpuMemoryBytes: 2 * GIB + 4096, utilization: 1, maxModelLen: 16 });
  assert.is(f.maxModelLen, 1024);
  assert.is(f.sequences, 64);
});

test('a zero length holds no sequence (never Infinity), and fits only if the weights do', () => {
  const f = fitOn({ weightsBytes: GIB, shape: tiny, gpus: 1, gpuMemoryBytes: 4 * GIB, utilization: 1, maxModelLen: 0 });
  assert.is(f.kvBytesPerGpu, 0);
  assert.is(f.sequences, 0);
  assert.is(f.fits, true);
  assert.is(fitOn({ weightsBytes: 3 * GIB, shape: tiny, gpus: 1, gpuMemoryBytes: 4 * GIB, utilization: 1, maxModelLen: 0 }).fits, true, 'left exactly 0');
  assert.is(fitOn({ weightsBytes: 4 * GIB, shape: tiny, gpus: 1, gpuMemoryBytes: 4 * GIB, utilization: 1, maxModelLen: 0 }).fits, false);
});

test("dtype names: 'torch.' is dropped only as a prefix, so a name with it inside stays unknown", () => {
  assert.is(dtypeBytes('torch.float16'), 2);
  assert.is(dtypeBytes('floattorch.16'), null);
  assert.is(dtypeBytes('fp8torch.'), 1);
  assert.is(dtypeBytes('bftorch.16'), null);
});

test.run();
