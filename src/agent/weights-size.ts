// How big a complete weights directory is, and its model's shape
// (docs/protocol.md#sizes-of-weights): what the plan needs to judge whether a
// model fits a GPU before anything is started (docs/placement.md). Read from what
// storage.ts has already listed and stat'ed, plus one small file, config.json.

import { open } from 'node:fs/promises';
import { join } from 'node:path';
import type { WeightsSize } from '../types/snapshot.js';

/** A config.json is a few KiB; one larger is not read (and its shape is unknown: null). */
export const MAX_CONFIG_BYTES = 1024 * 1024;

/** The fields the fit rule reads, numbers and dtype names alike. */
const NUMERIC = ['num_hidden_layers', 'num_attention_heads', 'num_key_value_heads', 'hidden_size', 'head_dim', 'max_position_embeddings'] as const;
const DTYPES = ['torch_dtype', 'dtype'] as const;

/**
 * The formats an engine loads, in vLLM's order of preference: a directory that
 * holds both safetensors and .bin copies (many Hugging Face repos do) loads the
 * safetensors, and counting both would double the model.
 */
const FORMATS = [/\.safetensors$/, /\.bin$/, /\.(pt|pth)$/, /\.gguf$/];

/**
 * Total bytes of the weights files of the preferred format; when an index of
 * that format names shards, only those (a repo may also carry a
 * consolidated copy of the same weights beside the shards, which vLLM skips).
 */
export function weightsBytes(sizes: ReadonlyMap<string, number | null>, indexes: readonly { index: string; shards: readonly string[] | null }[]): number {
  const present = [...sizes].filter(([, s]) => (s ?? 0) > 0) as [string, number][];
  for (const format of FORMATS) {
    const files = present.filter(([n]) => format.test(n));
    if (files.length === 0) continue;
    const named = new Set(indexes.filter((i) => format.test(i.index.replace(/\.index\.json$/, ''))).flatMap((i) => i.shards ?? []));
    const counted = named.size > 0 ? files.filter(([n]) => named.has(n)) : files;
    return (counted.length > 0 ? counted : files).reduce((sum, [, s]) => sum + s, 0);
  }
  return 0;
}

function record(v: unknown): Record<string, unknown> | null {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

/**
 * The listed fields of a parsed config.json, each from the top level or, when
 * the top level lacks it, from `text_config` (a multimodal model keeps its
 * language model's shape there). Only finite non-negative integers and short
 * strings are kept: config.json is a file anyone with a download can write.
 */
export function shapeFields(config: unknown): Record<string, unknown> {
  const top = record(config) ?? {};
  const text = record(top.text_config);
  const pick = (key: string): unknown => (top[key] !== undefined ? top[key] : text?.[key]);
  const out: Record<string, unknown> = {};
  for (const key of NUMERIC) {
    const v = pick(key);
    if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) out[key] = v;
  }
  for (const key of DTYPES) {
    const v = pick(key);
    if (typeof v === 'string' && v.length <= 64) out[key] = v;
  }
  const quant = record(pick('quantization_config'))?.quant_method;
  if (typeof quant === 'string' && quant.length <= 64) out.quantization_config = { quant_method: quant };
  return out;
}

/** config.json's shape fields; null when the directory has none, or it is too large or not JSON. */
export async function readShape(dir: string): Promise<Record<string, unknown> | null> {
  let fh;
  try {
    fh = await open(join(dir, 'config.json'), 'r');
  } catch {
    return null;
  }
  try {
    const { size } = await fh.stat();
    if (!(size > 0 && size <= MAX_CONFIG_BYTES)) return null;
    const buf = Buffer.alloc(size);
    await fh.read(buf, 0, size, 0);
    return shapeFields(JSON.parse(buf.toString('utf8')) as unknown);
  } catch {
    return null;
  } finally {
    await fh.close();
  }
}

export async function sizeOf(dir: string, bytes: number): Promise<WeightsSize> {
  return { bytes, config: await readShape(dir) };
}
