// The fit rule (docs/placement.md#will-it-fit) on real config.json shapes, KV
// bytes per token worked by hand in each test: 2 (K and V) × layers × kv heads
// × head_dim × bytes of the KV dtype, over the whole replica; each GPU holds
// 1 / min(GPUs, kv heads) of it.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { dtypeBytes, fitOn, GIB, kvBytesPerToken, needsText, givesText, shapeOf } from '../../src/fleet/fit.js';

const MIB = 2 ** 20;
const H100_MIB = 81559; // nvidia-smi memory.total of an NVIDIA H100 80GB HBM3
const A100_40_MIB = 40960; // NVIDIA A100-SXM4-40GB

// meta-llama/Llama-3.1-8B-Instruct config.json (the fields the rule reads, and some it must ignore)
const LLAMA_8B = {
  architectures: ['LlamaForCausalLM'],
  hidden_size: 4096,
  intermediate_size: 14336,
  max_position_embeddings: 131072,
  num_attention_heads: 32,
  num_hidden_layers: 32,
  num_key_value_heads: 8,
  rope_scaling: { factor: 8.0, rope_type: 'llama3' },
  torch_dtype: 'bfloat16',
  vocab_size: 128256,
};
// meta-llama/Llama-3.1-70B-Instruct
const LLAMA_70B = { ...LLAMA_8B, hidden_size: 8192, intermediate_size: 28672, num_attention_heads: 64, num_hidden_layers: 80 };
// Qwen/Qwen2.5-7B-Instruct: GQA with 4 kv heads of 28
const QWEN_7B = {
  architectures: ['Qwen2ForCausalLM'],
  hidden_size: 3584,
  max_position_embeddings: 32768,
  num_attention_heads: 28,
  num_hidden_layers: 28,
  num_key_value_heads: 4,
  sliding_window: 131072,
  torch_dtype: 'bfloat16',
};
// mistralai/Mixtral-8x7B-Instruct-v0.1: experts add weights, not KV
const MIXTRAL = {
  architectures: ['MixtralForCausalLM'],
  hidden_size: 4096,
  max_position_embeddings: 32768,
  num_attention_heads: 32,
  num_experts_per_tok: 2,
  num_hidden_layers: 32,
  num_key_value_heads: 8,
  num_local_experts: 8,
  torch_dtype: 'bfloat16',
};
// mistralai/Mistral-Nemo-Instruct-2407: head_dim 128 set explicitly, where hidden_size / heads = 160
const NEMO = {
  architectures: ['MistralForCausalLM'],
  head_dim: 128,
  hidden_size: 5120,
  max_position_embeddings: 1024000,
  num_attention_heads: 32,
  num_hidden_layers: 40,
  num_key_value_heads: 8,
  torch_dtype: 'bfloat16',
};
// meta-llama/Llama-3.2-11B-Vision-Instruct: the language model under text_config; vision_config must not be read
const VISION = {
  architectures: ['MllamaForConditionalGeneration'],
  torch_dtype: 'bfloat16',
  text_config: { hidden_size: 4096, max_position_embeddings: 131072, num_attention_heads: 32, num_hidden_layers: 40, num_key_value_heads: 8 },
  vision_config: { hidden_size: 1280, num_hidden_layers: 32, attention_heads: 16 },
};
// neuralmagic/Meta-Llama-3.1-70B-Instruct-FP8: fp8 weights, bf16 activations and KV
const LLAMA_70B_FP8 = { ...LLAMA_70B, quantization_config: { quant_method: 'compressed-tensors', format: 'float-quantized' } };

function perToken(config: unknown, kv?: Parameters<typeof kvBytesPerToken>[1]): number | null {
  return kvBytesPerToken(shapeOf(config)!, kv);
}

test('Llama-3.1-8B: 2 × 32 layers × 8 kv heads × 128 (4096/32) × 2 bytes = 131072 bytes (128 KiB) per token', () => {
  assert.is(perToken(LLAMA_8B), 131072);
});

test('Llama-3.1-70B: 2 × 80 × 8 × 128 (8192/64) × 2 = 327680 bytes (320 KiB) per token', () => {
  assert.is(perToken(LLAMA_70B), 327680);
});

test('Qwen2.5-7B (GQA, 4 kv heads): 2 × 28 × 4 × 128 (3584/28) × 2 = 57344 bytes per token', () => {
  assert.is(perToken(QWEN_7B), 57344);
});

test('Mixtral-8x7B (MoE): the experts do not change KV: 2 × 32 × 8 × 128 × 2 = 131072 bytes per token', () => {
  assert.is(perToken(MIXTRAL), 131072);
});

test('Mistral-Nemo: head_dim 128 as written wins over 5120/32 = 160: 2 × 40 × 8 × 128 × 2 = 163840, not 204800', () => {
  assert.is(perToken(NEMO), 163840);
});

test('Llama-3.2-11B-Vision: read from text_config (40 layers), dtype from the top level: 2 × 40 × 8 × 128 × 2 = 163840', () => {
  assert.is(perToken(VISION), 163840);
  assert.equal(shapeOf(VISION), {
    num_hidden_layers: 40,
    num_attention_heads: 32,
    num_key_value_heads: 8,
    hidden_size: 4096,
    max_position_embeddings: 131072,
    torch_dtype: 'bfloat16',
  });
});

test('fp8-quantised weights keep a bf16 KV cache (327680 per token, as the 70B); kvCacheDtype fp8 halves it to 163840', () => {
  assert.is(shapeOf(LLAMA_70B_FP8)!.quant_method, 'compressed-tensors');
  assert.is(perToken(LLAMA_70B_FP8), 327680);
  assert.is(perToken(LLAMA_70B_FP8, 'fp8'), 163840);
  assert.is(perToken(LLAMA_8B, 'float32'), 262144);
  assert.is(perToken(LLAMA_8B, 'auto'), 131072);
});

test('dtype names map to bytes as vLLM maps them', () => {
  assert.equal(
    ['bfloat16', 'float16', 'half', 'float32', 'float', 'fp8', 'fp8_e4m3', 'fp8_e5m2', 'float8_e4m3fn', 'torch.bfloat16', 'int4', undefined].map(dtypeBytes),
    [2, 2, 2, 4, 4, 1, 1, 1, 1, 2, null, null],
  );
});

test('a config without num_key_value_heads is multi-head attention; one without head_dim has hidden/heads', () => {
  // 2 × 12 layers × 12 heads × 64 (768/12) × 4 bytes (float32) = 73728
  assert.is(perToken({ num_hidden_layers: 12, num_attention_heads: 12, hidden_size: 768, torch_dtype: 'float32' }), 73728);
  assert.is(perToken({ num_hidden_layers: 12 }), null);
  assert.is(shapeOf({ num_hidden_layers: 'many', torch_dtype: 7 }), null);
});

test('the contract example: Llama-3.1-70B on 2 A100-40GB does not fit, and says so in these words', () => {
  // 141,107,000,000 bytes / 2 GPUs = 65.7 GiB; 327680 × 131072 / min(2, 8) = 20.0 GiB; 40960 MiB × 0.9 = 36.0 GiB
  const fit = fitOn({ weightsBytes: 141_107_000_000, shape: shapeOf(LLAMA_70B), gpus: 2, gpuMemoryBytes: A100_40_MIB * MIB, utilization: 0.9 });
  assert.is(fit.fits, false);
  assert.is(fit.kvBytesPerGpu, 20 * GIB);
  assert.is(fit.maxModelLen, 0);
  assert.is(fit.sequences, 0);
  assert.is(
    `${needsText(fit)}; ${givesText('NVIDIA A100-SXM4-40GB', fit, 0.9)}`,
    'needs 65.7 GiB per GPU for weights + 1 GiB + 20.0 GiB KV for 131072 tokens; NVIDIA A100-SXM4-40GB gives 36.0 GiB at 0.9',
  );
});

test('Llama-3.1-70B on 4 H100 80GB fits: 3 full-length sequences', () => {
  // budget 81559 MiB × 0.9 = 71.68 GiB; weights 141.107e9 / 4 = 32.85 GiB + 1 GiB; left 37.83 GiB;
  // one 131072-token sequence: 327680 × 131072 / 4 = 10 GiB, so 3 fit; the longest that fits is capped at 131072.
  const fit = fitOn({ weightsBytes: 141_107_000_000, shape: shapeOf(LLAMA_70B), gpus: 4, gpuMemoryBytes: H100_MIB * MIB, utilization: 0.9 });
  assert.equal([fit.fits, fit.kvBytesPerGpu, fit.sequences, fit.maxModelLen], [true, 10 * GIB, 3, 131072]);
});

test('weights that fit but leave too little for one full sequence: fits is false, maxModelLen the longest that does', () => {
  // Llama-3.1-8B on one A100-40GB: 36 GiB − 16,060,522,240 bytes (14.96 GiB) − 1 GiB = 20.04 GiB left;
  // a 131072-token sequence needs 16 GiB: fits, once. At utilization 0.5: 21,474,836,480 − 16,060,522,240
  // − 1,073,741,824 = 4,340,572,416 bytes left, / 131072 per token = 33,115 tokens.
  const shape = shapeOf(LLAMA_8B);
  const at = (utilization: number) => fitOn({ weightsBytes: 16_060_522_240, shape, gpus: 1, gpuMemoryBytes: A100_40_MIB * MIB, utilization });
  assert.equal([at(0.9).fits, at(0.9).sequences], [true, 1]);
  const half = at(0.5);
  assert.equal([half.fits, half.sequences, half.maxModelLen], [false, 0, Math.floor((20 * GIB - 16_060_522_240 - GIB) / 131072)]);
  assert.is(half.maxModelLen, 33115);
});

test('maxModelLen as configured is the sequence judged; the longest that fits stays capped at max_position_embeddings', () => {
  const fit = fitOn({ weightsBytes: 16_060_522_240, shape: shapeOf(QWEN_7B), gpus: 1, gpuMemoryBytes: H100_MIB * MIB, utilization: 0.9, maxModelLen: 8192 });
  // 57344 × 8192 = 448 MiB a sequence
  assert.is(fit.kvBytesPerGpu, 448 * MIB);
  assert.is(fit.maxModelLen, 32768);
  assert.is(fit.tokens, 8192);
});

test('more GPUs than kv heads replicate the heads: Qwen2.5-7B on 8 GPUs splits KV by 4, not 8', () => {
  const fit = fitOn({ weightsBytes: 15e9, shape: shapeOf(QWEN_7B), gpus: 8, gpuMemoryBytes: H100_MIB * MIB, utilization: 0.9 });
  assert.is(fit.kvBytesPerGpu, (57344 * 32768) / 4);
});

test('without a config.json only the weights are judged: KV, maxModelLen and sequences are null', () => {
  const small = fitOn({ weightsBytes: 30 * GIB, shape: null, gpus: 1, gpuMemoryBytes: A100_40_MIB * MIB, utilization: 0.9 });
  assert.equal([small.fits, small.kvBytesPerGpu, small.maxModelLen, small.sequences], [true, null, null, null]);
  assert.is(needsText(small), 'needs 30.0 GiB per GPU for weights + 1 GiB');
  const big = fitOn({ weightsBytes: 36 * GIB, shape: null, gpus: 1, gpuMemoryBytes: A100_40_MIB * MIB, utilization: 0.9 });
  assert.is(big.fits, false);
});

test.run();
