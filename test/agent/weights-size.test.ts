// Sizes of weights (docs/protocol.md#sizes-of-weights): per complete directory, the
// bytes of the weights an engine loads and config.json's shape fields, on real
// config.json shapes (Llama 3.1, Qwen2.5 GQA, Mixtral MoE, Gemma 3 with text_config).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scanStorage } from '../../src/agent/storage.js';
import { MAX_CONFIG_BYTES, shapeFields, weightsBytes } from '../../src/agent/weights-size.js';
import { LLAMA_70B_SHAPE } from '../fixtures/index.js';

const LLAMA_70B = {
  architectures: ['LlamaForCausalLM'],
  hidden_size: 8192,
  intermediate_size: 28672,
  max_position_embeddings: 131072,
  model_type: 'llama',
  num_attention_heads: 64,
  num_hidden_layers: 80,
  num_key_value_heads: 8,
  rope_scaling: { factor: 8.0, rope_type: 'llama3' },
  torch_dtype: 'bfloat16',
  vocab_size: 128256,
};

test('Llama-3.1-70B: the listed fields, nothing else', () => {
  assert.equal(shapeFields(LLAMA_70B), LLAMA_70B_SHAPE);
});

test('an FP8 Qwen2.5 with dtype (newer transformers) and quantization_config: quant_method only; head_dim when set', () => {
  const qwen = {
    hidden_size: 3584,
    num_attention_heads: 28,
    num_key_value_heads: 4,
    num_hidden_layers: 28,
    head_dim: 128,
    max_position_embeddings: 32768,
    dtype: 'bfloat16',
    quantization_config: { quant_method: 'fp8', activation_scheme: 'dynamic', weight_block_size: [128, 128] },
  };
  assert.equal(shapeFields(qwen), {
    num_hidden_layers: 28,
    num_attention_heads: 28,
    num_key_value_heads: 4,
    hidden_size: 3584,
    head_dim: 128,
    max_position_embeddings: 32768,
    dtype: 'bfloat16',
    quantization_config: { quant_method: 'fp8' },
  });
});

test('a multimodal model (Gemma 3) keeps its language model under text_config: read there when the top level lacks a field', () => {
  const gemma = {
    architectures: ['Gemma3ForConditionalGeneration'],
    torch_dtype: 'bfloat16',
    text_config: {
      hidden_size: 5376,
      num_attention_heads: 32,
      num_key_value_heads: 16,
      num_hidden_layers: 62,
      head_dim: 128,
      max_position_embeddings: 131072,
      torch_dtype: 'float32',
    },
    vision_config: { hidden_size: 1152, num_hidden_layers: 27 },
  };
  assert.equal(shapeFields(gemma), {
    num_hidden_layers: 62,
    num_attention_heads: 32,
    num_key_value_heads: 16,
    hidden_size: 5376,
    head_dim: 128,
    max_position_embeddings: 131072,
    torch_dtype: 'bfloat16',
  });
});

test('untrusted values are dropped: fractions, negatives, strings for numbers, huge strings, non-object configs', () => {
  assert.equal(
    shapeFields({ num_hidden_layers: 1.5, hidden_size: -1, num_attention_heads: '64', torch_dtype: 'x'.repeat(65), quantization_config: 'fp8' }),
    {},
  );
  assert.equal(shapeFields([1, 2]), {});
  assert.equal(shapeFields(null), {});
});

test('bytes count one format: safetensors over a .bin copy, and only the shards an index names (a consolidated copy beside them is skipped)', () => {
  const sizes = new Map<string, number | null>([
    ['model-00001-of-00002.safetensors', 100],
    ['model-00002-of-00002.safetensors', 50],
    ['consolidated.safetensors', 150],
    ['pytorch_model.bin', 150],
  ]);
  assert.is(
    weightsBytes(sizes, [{ index: 'model.safetensors.index.json', shards: ['model-00001-of-00002.safetensors', 'model-00002-of-00002.safetensors'] }]),
    150,
  );
  assert.is(weightsBytes(sizes, []), 300, 'no index: every safetensors file');
  assert.is(
    weightsBytes(
      new Map([
        ['pytorch_model.bin', 7],
        ['model.gguf', 9],
      ]),
      [],
    ),
    7,
  );
});

test('scanStorage: sizes beside weights, for complete directories only; config null without config.json or with one that is not JSON or too big', async () => {
  const root = await mkdtemp(join(tmpdir(), 'llmgw-sizes-'));
  try {
    const put = async (dir: string, files: Record<string, string>) => {
      await mkdir(join(root, dir), { recursive: true });
      for (const [f, c] of Object.entries(files)) await writeFile(join(root, dir, f), c);
    };
    await put('meta-llama/Llama-3.1-70B-Instruct', { 'config.json': JSON.stringify(LLAMA_70B), 'model.safetensors': 'x'.repeat(1000) });
    await put('org/no-config', { 'model.safetensors': 'x'.repeat(10) });
    await put('org/bad-config', { 'config.json': '{not json', 'model.safetensors': 'x' });
    await put('org/big-config', { 'config.json': ' '.repeat(MAX_CONFIG_BYTES + 1), 'model.safetensors': 'x' });
    await put('org/half', { 'model.safetensors': 'x', 'model.safetensors.part': '' });
    const r = await scanStorage({
      storage: [{ path: root, kind: 'local' }],
      weights: ['meta-llama/Llama-3.1-70B-Instruct', 'org/no-config', 'org/bad-config', 'org/big-config', 'org/half'],
    });
    assert.equal(r.storage[0]?.incomplete, ['org/half']);
    assert.equal(r.storage[0]?.sizes, {
      'meta-llama/Llama-3.1-70B-Instruct': { bytes: 1000, config: shapeFields(LLAMA_70B) },
      'org/no-config': { bytes: 10, config: null },
      'org/bad-config': { bytes: 1, config: null },
      'org/big-config': { bytes: 1, config: null },
    });
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test.run();
