// models.yaml's plain data -> ModelConfig[]: defaults and the meaning checks
// (unique names, declared engines, weights that stay under a storage path,
// args that the engine's allowArgs admit).

import {
  KV_CACHE_DTYPES,
  MODEL_FIT_DEFAULTS,
  SPREADS,
  TARGET_INFLIGHT_DEFAULT,
  type AdapterConfig,
  type ConfigProblem,
  type ModelConfig,
  type ScaleConfig,
} from '../types/config.js';
import { clip } from '../text/terminal-text.js';
import { globMatches } from './arg-glob.js';
import { didYouMean } from './did-you-mean.js';
import { COMMAND_PLACEHOLDERS, unknownPlaceholders } from './placeholders.js';
import { arr, int, num, obj, str, type Raw } from './raw.js';
import type { ArgRules } from './resolve-engines.js';
import { modelLifecycle, waitAt, type ModelDefaults } from './resolve-lifecycle.js';
import { problemAt, type YamlSource } from './yaml-source.js';

export interface ModelsContext {
  src: YamlSource;
  errors: ConfigProblem[];
  /** Engine names declared in cluster.yaml; undefined when cluster.yaml could not be read. */
  engines: string[] | undefined;
  /** Each engine's allowArgs; undefined when cluster.yaml could not be resolved (nothing to check against). */
  argRules: ArgRules | undefined;
  /** cluster.yaml's `defaults:`, or the built-in ones. */
  defaults: ModelDefaults;
}

/** Why `weights` cannot name a directory under a storage path (the agent would ignore it), or null. */
function weightsProblem(weights: string): string | null {
  const segments = weights.split('/');
  if (weights.startsWith('/') || segments.includes('..')) return 'must be a relative directory under a storage path (no leading / and no ..)';
  if (segments.every((seg) => seg === '.' || seg === '')) return 'must be a directory under a storage path, not the storage path itself';
  return null;
}

/** The fit, spread and survive keys (docs/config.md): defaults filled in, an absent size or length left absent. */
function fitKeys(m: Raw): Pick<ModelConfig, 'maxModelLen' | 'gpuMemoryUtilization' | 'kvCacheDtype' | 'weightsBytes' | 'spread' | 'survive'> {
  const maxModelLen = int(m.maxModelLen);
  const weightsBytes = int(m.weightsBytes);
  const utilization = num(m.gpuMemoryUtilization);
  const kv = KV_CACHE_DTYPES.find((d) => d === m.kvCacheDtype);
  // The schema has already refused any other value; these only read what it let through.
  return {
    ...(maxModelLen !== undefined && maxModelLen >= 1 ? { maxModelLen } : {}),
    gpuMemoryUtilization: utilization !== undefined && utilization > 0 && utilization <= 1 ? utilization : MODEL_FIT_DEFAULTS.gpuMemoryUtilization,
    ...(kv !== undefined ? { kvCacheDtype: kv } : {}),
    ...(weightsBytes !== undefined && weightsBytes >= 1 ? { weightsBytes } : {}),
    spread: SPREADS.find((x) => x === m.spread) ?? MODEL_FIT_DEFAULTS.spread,
    survive: SPREADS.find((x) => x === m.survive) ?? MODEL_FIT_DEFAULTS.survive,
  };
}

/**
 * `replicas` as a fixed count, or a range (docs/config.md#on-demand-models): a
 * ranged model's `replicas` is its `min` until a tick decides otherwise
 * (src/plan/scale.ts), so a reader of the bare config never starts more than the PR allows.
 */
function replicasKeys(ctx: ModelsContext, m: Raw, i: number): Pick<ModelConfig, 'replicas' | 'scale'> {
  const r = m.replicas;
  if (r === null || typeof r !== 'object' || Array.isArray(r)) return { replicas: int(r) ?? 1 };
  const range = r as Raw;
  const min = int(range.min) ?? 0;
  const max = int(range.max) ?? 1;
  if (min > max) ctx.errors.push(problemAt(ctx.src, ['models', i, 'replicas'], `min (${min}) must be at most max (${max})`));
  const scaleDownAfter = m.scaleDownAfter;
  const scale: ScaleConfig = {
    min,
    max,
    targetInflight: int(m.targetInflight) ?? TARGET_INFLIGHT_DEFAULT,
    ...(typeof scaleDownAfter === 'string' ? { scaleDownAfterMs: waitAt(ctx, scaleDownAfter, 0, ['models', i, 'scaleDownAfter']) } : {}),
  };
  return { replicas: Math.min(min, max), scale };
}

/** How long a request may wait at a router (docs/config.md#on-demand-models): above 0, at most the day a router accepts. */
function waitTimeoutKey(ctx: ModelsContext, m: Raw, i: number): Pick<ModelConfig, 'waitTimeoutMs'> {
  if (typeof m.waitTimeout !== 'string') return {};
  const at = ['models', i, 'waitTimeout'];
  const ms = waitAt(ctx, m.waitTimeout, 0, at);
  if (ms <= 0 || ms > 86_400_000) ctx.errors.push(problemAt(ctx.src, at, 'must be longer than 0s and at most 24h'));
  return { waitTimeoutMs: ms };
}

/** models.yaml `adapters`, each weights checked like a model's; absent when none. */
function adapterKeys(ctx: ModelsContext, m: Raw, i: number): Pick<ModelConfig, 'adapters'> {
  const adapters: AdapterConfig[] = [];
  arr(m.adapters).forEach((item, j) => {
    const a = obj(item);
    const name = str(a.name);
    const weights = str(a.weights);
    if (name === undefined || weights === undefined) return;
    const wrong = weightsProblem(weights);
    if (wrong !== null) ctx.errors.push(problemAt(ctx.src, ['models', i, 'adapters', j, 'weights'], wrong));
    adapters.push({ name, weights });
  });
  return adapters.length > 0 ? { adapters } : {};
}

/** An adapter is routed by its name, so it may be neither a model's name nor another adapter's. */
function checkAdapterNames(ctx: ModelsContext, raw: Raw, models: readonly ModelConfig[]): void {
  const modelNames = new Set(models.map((m) => m.name));
  const owner = new Map<string, string>();
  arr(raw.models).forEach((item, i) => {
    const model = str(obj(item).name) ?? '';
    arr(obj(item).adapters).forEach((a, j) => {
      const name = str(obj(a).name);
      if (name === undefined) return;
      const at = ['models', i, 'adapters', j, 'name'];
      const first = owner.get(name);
      if (modelNames.has(name)) ctx.errors.push(problemAt(ctx.src, at, `adapter '${name}' has the name of a model: requests could not tell them apart`));
      else if (first !== undefined) ctx.errors.push(problemAt(ctx.src, at, `duplicate adapter name '${name}': already an adapter of model '${first}'`));
      else owner.set(name, model);
    });
  });
}

export function resolveModels(ctx: ModelsContext, raw: Raw): ModelConfig[] {
  const models: ModelConfig[] = [];
  const seen = new Map<string, number>();
  arr(raw.models).forEach((item, i) => {
    const m = obj(item);
    const name = str(m.name);
    const engine = str(m.engine);
    const weights = str(m.weights);
    if (name !== undefined) {
      const first = seen.get(name);
      if (first !== undefined) {
        ctx.errors.push(problemAt(ctx.src, ['models', i, 'name'], `duplicate model name '${name}': already models[${first}]`));
      } else seen.set(name, i);
    }
    if (engine !== undefined && ctx.engines !== undefined && !ctx.engines.includes(engine)) {
      const declared = ctx.engines.length ? ctx.engines.join(', ') : 'none';
      ctx.errors.push(
        problemAt(
          ctx.src,
          ['models', i, 'engine'],
          `engine '${engine}' is not declared in cluster.yaml engines${didYouMean(engine, ctx.engines)} (declared: ${declared})`,
        ),
      );
    }
    const weightsWrong = weights === undefined ? null : weightsProblem(weights);
    if (weightsWrong !== null) ctx.errors.push(problemAt(ctx.src, ['models', i, 'weights'], weightsWrong));
    // Matched as written, before placeholders: `{port}` is llmgw's value, and a glob over the written form reads plainly.
    const rules = engine === undefined ? undefined : ctx.argRules?.get(engine);
    arr(m.args).forEach((arg, j) => {
      if (typeof arg !== 'string') return;
      for (const message of unknownPlaceholders(arg, COMMAND_PLACEHOLDERS)) {
        ctx.errors.push(problemAt(ctx.src, ['models', i, 'args', j], message));
      }
      if (rules !== undefined && !rules.some((g) => globMatches(g, arg))) {
        ctx.errors.push(
          problemAt(
            ctx.src,
            ['models', i, 'args', j],
            `model '${clip(name ?? '')}': arg '${clip(arg)}' is not allowed by engine '${engine ?? ''}' (no glob of its allowArgs matches)`,
          ),
        );
      }
    });
    const gpuClass = str(m.gpuClass);
    models.push({
      name: name ?? '',
      weights: weights ?? '',
      engine: engine ?? '',
      ...(gpuClass !== undefined ? { gpuClass } : {}),
      gpus: int(m.gpus) ?? 1,
      nodes: int(m.nodes) ?? 1,
      ...replicasKeys(ctx, m, i),
      priority: int(m.priority) ?? 0,
      args: arr(m.args).filter((a): a is string => typeof a === 'string'),
      // Absent means the routers' default (prefix); the schema has already refused any other value.
      ...(m.routing === 'prefix' || m.routing === 'least-inflight' ? { routing: m.routing } : {}),
      index: i,
      ...fitKeys(m),
      ...modelLifecycle(ctx, m, ['models', i], ctx.defaults),
      ...waitTimeoutKey(ctx, m, i),
      ...adapterKeys(ctx, m, i),
    });
  });
  checkAdapterNames(ctx, raw, models);
  return models;
}
