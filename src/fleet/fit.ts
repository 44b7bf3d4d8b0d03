// Will it fit (docs/placement.md#will-it-fit): vLLM's memory accounting,
// simplified, as a pure function. With t GPUs of memory M each, a replica needs
//   weights / t + 1 GiB              (activations and CUDA graphs)
// to fit in M × gpuMemoryUtilization, and what remains must hold the KV cache
// of one full sequence:
//   2 × layers × kv heads × head_dim × bytes(kv dtype) × maxModelLen / min(t, kv heads)
// bytes per GPU. Quantised weights are counted by their bytes on disk: that is
// what they occupy on the GPU; the KV cache keeps the model's dtype unless
// kvCacheDtype says otherwise, as in vLLM.

import type { KvCacheDtype } from '../types/config.js';

export const GIB = 2 ** 30;
/** What the rule reserves beside the weights on every GPU: activations and CUDA graphs. */
export const OVERHEAD_BYTES = GIB;

/** The config.json fields the rule reads (docs/placement.md#will-it-fit). */
export interface ModelShape {
  num_hidden_layers?: number;
  num_attention_heads?: number;
  num_key_value_heads?: number;
  hidden_size?: number;
  head_dim?: number;
  torch_dtype?: string;
  dtype?: string;
  max_position_embeddings?: number;
  quant_method?: string;
}

const NUMERIC = ['num_hidden_layers', 'num_attention_heads', 'num_key_value_heads', 'hidden_size', 'head_dim', 'max_position_embeddings'] as const;

function record(v: unknown): Record<string, unknown> | null {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

function positiveInt(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isSafeInteger(v) && v > 0 ? v : undefined;
}

/**
 * The shape from a config.json as a report carries it (untrusted: anything not
 * a positive integer or a string is left out). A multimodal model keeps its
 * language model's fields under `text_config`: read there when the top level
 * lacks them. null when nothing the rule reads is there.
 */
export function shapeOf(config: unknown): ModelShape | null {
  const top = record(config);
  if (top === null) return null;
  const text = record(top.text_config);
  const pick = (key: string): unknown => (top[key] !== undefined ? top[key] : text?.[key]);
  const shape: ModelShape = {};
  for (const key of NUMERIC) {
    const n = positiveInt(pick(key));
    if (n !== undefined) shape[key] = n;
  }
  for (const key of ['torch_dtype', 'dtype'] as const) {
    const s = pick(key);
    if (typeof s === 'string') shape[key] = s;
  }
  const quant = record(pick('quantization_config'))?.quant_method ?? pick('quant_method');
  if (typeof quant === 'string') shape.quant_method = quant;
  return Object.keys(shape).length > 0 ? shape : null;
}

/** Bytes per element as vLLM maps dtype names: 16-bit floats 2, float32 4, every fp8 variant 1; null when unknown. */
export function dtypeBytes(name: string | undefined): number | null {
  if (name === undefined) return null;
  const n = name.toLowerCase().replace(/^torch\./, '');
  if (n === 'bfloat16' || n === 'float16' || n === 'half' || n === 'bf16' || n === 'fp16') return 2;
  if (n === 'float32' || n === 'float' || n === 'fp32') return 4;
  if (n.startsWith('fp8') || n.startsWith('float8')) return 1;
  return null;
}

/**
 * KV cache bytes per token over the whole replica (before it is split over
 * GPUs), or null when the shape lacks what the rule needs. A config without
 * `num_key_value_heads` is plain multi-head attention (kv heads = heads); one
 * without `head_dim` has `hidden_size / num_attention_heads`. A model with no
 * dtype anywhere is taken as 16-bit, what vLLM loads it as.
 */
export function kvBytesPerToken(shape: ModelShape, kvCacheDtype?: KvCacheDtype): number | null {
  const layers = shape.num_hidden_layers;
  const heads = shape.num_attention_heads;
  const kvHeads = shape.num_key_value_heads ?? heads;
  const headDim = shape.head_dim ?? (shape.hidden_size !== undefined && heads !== undefined ? shape.hidden_size / heads : undefined);
  if (layers === undefined || kvHeads === undefined || headDim === undefined) return null;
  const own = dtypeBytes(shape.torch_dtype ?? shape.dtype) ?? 2;
  const bytes = kvCacheDtype === undefined || kvCacheDtype === 'auto' ? own : (dtypeBytes(kvCacheDtype) ?? own);
  return 2 * layers * kvHeads * headDim * bytes;
}

export interface FitInput {
  /** The weights' total bytes (on disk: quantised weights as they are). */
  weightsBytes: number;
  /** null: no config.json, so the KV cache cannot be computed and only the weights are judged. */
  shape: ModelShape | null;
  /** GPUs of one replica in all: gpus × nodes. */
  gpus: number;
  /** Memory of one GPU. */
  gpuMemoryBytes: number;
  /** 0..1 */
  utilization: number;
  /** models.yaml maxModelLen; absent: the shape's max_position_embeddings. */
  maxModelLen?: number;
  kvCacheDtype?: KvCacheDtype;
}

export interface Fit {
  fits: boolean;
  weightsBytesPerGpu: number;
  /** The KV cache of one sequence of `tokens` on one GPU; null when it cannot be computed. */
  kvBytesPerGpu: number | null;
  /** The sequence length judged (models.yaml maxModelLen, else max_position_embeddings); null when unknown. */
  tokens: number | null;
  /** M × utilization. */
  budgetBytes: number;
  /** The largest maxModelLen that fits, capped at max_position_embeddings; 0 when the weights alone do not fit; null without KV. */
  maxModelLen: number | null;
  /** Full-length sequences the KV cache holds; null without KV. */
  sequences: number | null;
}

export function fitOn(input: FitInput): Fit {
  const t = Math.max(1, input.gpus);
  const weightsBytesPerGpu = input.weightsBytes / t;
  const budgetBytes = input.gpuMemoryBytes * input.utilization;
  const left = budgetBytes - weightsBytesPerGpu - OVERHEAD_BYTES;
  const perToken = input.shape === null ? null : kvBytesPerToken(input.shape, input.kvCacheDtype);
  const positions = input.shape?.max_position_embeddings;
  const tokens = input.maxModelLen ?? positions ?? null;
  if (perToken === null || tokens === null) {
    return { fits: left >= 0, weightsBytesPerGpu, kvBytesPerGpu: null, tokens, budgetBytes, maxModelLen: null, sequences: null };
  }
  // Each GPU holds its share of the kv heads; with more GPUs than kv heads they are replicated, not split further.
  const perTokenPerGpu = perToken / Math.min(t, input.shape?.num_key_value_heads ?? input.shape?.num_attention_heads ?? t);
  const kvBytesPerGpu = perTokenPerGpu * tokens;
  const room = Math.max(0, left);
  const longest = left < 0 ? 0 : Math.floor(room / perTokenPerGpu);
  return {
    fits: left >= 0 && room >= kvBytesPerGpu,
    weightsBytesPerGpu,
    kvBytesPerGpu,
    tokens,
    budgetBytes,
    maxModelLen: positions === undefined ? longest : Math.min(longest, positions),
    sequences: kvBytesPerGpu > 0 ? Math.floor(room / kvBytesPerGpu) : 0,
  };
}

/** GiB to two decimals, as JSON shows them. */
export function gib(bytes: number): number {
  return Math.round((bytes / GIB) * 100) / 100;
}

/**
 * What a replica needs against what one GPU gives, in GiB to one decimal:
 * `needs 65.7 GiB per GPU for weights + 1 GiB + 20.0 GiB KV for 131072 tokens;
 * NVIDIA A100-SXM4-40GB gives 36.0 GiB at 0.9`.
 */
export function needsText(fit: Fit): string {
  const weights = `needs ${(fit.weightsBytesPerGpu / GIB).toFixed(1)} GiB per GPU for weights + 1 GiB`;
  return fit.kvBytesPerGpu === null ? weights : `${weights} + ${(fit.kvBytesPerGpu / GIB).toFixed(1)} GiB KV for ${String(fit.tokens)} tokens`;
}

export function givesText(product: string, fit: Fit, utilization: number): string {
  return `${product} gives ${(fit.budgetBytes / GIB).toFixed(1)} GiB at ${utilization}`;
}
