// How a replica is checked, rolled out and stopped (docs/config.md): models.yaml's
// `check`, `rollout`, `drainTimeout` and `stopGrace`, over cluster.yaml's
// `defaults`. Only the config surface: what the values mean at run time is
// the agent's, the planner's and the applier's business.

import { LIVENESS_DEFAULTS, MODEL_LIFECYCLE_DEFAULTS, type CheckConfig, type ConfigProblem, type LivenessConfig, type RolloutConfig } from '../types/config.js';
import { compileBounded } from '../util/bounded-pattern.js';
import { durationAt, timeoutAt } from './resolve-ssh.js';
import { int, num, obj, str, type Raw } from './raw.js';
import { problemAt, type PathSegment, type YamlSource } from './yaml-source.js';

export interface LifecycleContext {
  src: YamlSource;
  errors: ConfigProblem[];
}

/** What a model without its own values gets. */
export interface ModelDefaults {
  drainTimeoutMs: number;
  stopGraceMs: number;
  check: CheckConfig | null;
  liveness?: LivenessConfig;
}

/** docs/config.md's defaults. */
export const BUILT_IN_DEFAULTS: ModelDefaults = {
  drainTimeoutMs: MODEL_LIFECYCLE_DEFAULTS.drainTimeoutMs,
  stopGraceMs: MODEL_LIFECYCLE_DEFAULTS.stopGraceMs,
  check: null,
};

/** A `liveness:` mapping over `base`: each key written wins, the others stay. */
function livenessOf(ctx: LifecycleContext, raw: unknown, base: LivenessConfig, at: PathSegment[]): LivenessConfig {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return base;
  const l = raw as Raw;
  return {
    consecutiveErrors: int(l.consecutiveErrors) ?? base.consecutiveErrors,
    stallAfterMs: waitAt(ctx, l.stallAfter, base.stallAfterMs, [...at, 'stallAfter']),
    ejectForMs: waitAt(ctx, l.ejectFor, base.ejectForMs, [...at, 'ejectFor']),
    replaceAfterMs: waitAt(ctx, l.replaceAfter, base.replaceAfterMs, [...at, 'replaceAfter']),
  };
}
export const LIFECYCLE_DEFAULTS = { checkTimeout: '60s', canary: 1, holdMs: 10 * 60_000, maxErrorRate: 0.05 } as const;

/** Node's timers overflow past this (about 24.8 days); a wait that long is never meant. */
const MAX_WAIT_MS = 2 ** 31 - 1;

/** A duration that may be 0 (no wait) but that a timer must be able to count; `fallbackMs` when not written. */
export function waitAt(ctx: LifecycleContext, v: unknown, fallbackMs: number, at: PathSegment[]): number {
  if (typeof v !== 'string') return fallbackMs;
  // A malformed duration was reported by the schema: the config is invalid whatever this returns.
  const ms = durationAt(ctx, v, '0s', at);
  if (ms > MAX_WAIT_MS) {
    ctx.errors.push(problemAt(ctx.src, at, 'must be at most 24d'));
    return MAX_WAIT_MS;
  }
  return ms;
}

const FLAG_GROUP = /^\(\?[a-zA-Z-]*\)/;

/**
 * `(?i)` at the start is the case-insensitive flag, as in Go and Python:
 * JavaScript's RegExp on Node 20 has no inline flags. Any other `(?…)` flag
 * group is an error here rather than a surprise on a node.
 */
function expectOf(ctx: LifecycleContext, v: unknown, at: PathSegment[]): CheckConfig['expect'] {
  const text = str(v) ?? '';
  const insensitive = text.startsWith('(?i)');
  const source = insensitive ? text.slice(4) : text;
  const flags = insensitive ? 'i' : '';
  if (FLAG_GROUP.test(source) || (!insensitive && FLAG_GROUP.test(text))) {
    ctx.errors.push(problemAt(ctx.src, at, 'only (?i), at the start, is understood as a flag (case-insensitive)'));
  } else if (text !== '') {
    try {
      new RegExp(source, flags);
    } catch (err) {
      // V8's message is "Invalid regular expression: /…/: why"; the why is what helps.
      const why = (err as Error).message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, '');
      ctx.errors.push(problemAt(ctx.src, at, `is not a valid regular expression: ${why}`));
      return { source, flags };
    }
    // Nodes match it with RE2 (linear time): a pattern RE2 cannot compile would fail every start.
    const bounded = compileBounded(source, flags);
    if (!bounded.ok) ctx.errors.push(problemAt(ctx.src, at, bounded.error));
  }
  return { source, flags };
}

/** A `check:` mapping (models.yaml or defaults.check); the schema has said whether it is well formed. */
export function checkOf(ctx: LifecycleContext, raw: Raw, at: PathSegment[]): CheckConfig {
  return {
    prompt: str(raw.prompt) ?? '',
    expect: expectOf(ctx, raw.expect, [...at, 'expect']),
    timeoutMs: timeoutAt(ctx, raw.timeout, LIFECYCLE_DEFAULTS.checkTimeout, [...at, 'timeout']),
  };
}

/** cluster.yaml's `defaults:`. */
export function resolveModelDefaults(ctx: LifecycleContext, raw: Raw): ModelDefaults {
  const check = raw.check;
  return {
    drainTimeoutMs: waitAt(ctx, raw.drainTimeout, BUILT_IN_DEFAULTS.drainTimeoutMs, ['defaults', 'drainTimeout']),
    stopGraceMs: waitAt(ctx, raw.stopGrace, BUILT_IN_DEFAULTS.stopGraceMs, ['defaults', 'stopGrace']),
    check: check !== null && typeof check === 'object' && !Array.isArray(check) ? checkOf(ctx, check as Raw, ['defaults', 'check']) : null,
    liveness: livenessOf(ctx, raw.liveness, LIVENESS_DEFAULTS, ['defaults', 'liveness']),
  };
}

/** One model's lifecycle fields, over the defaults. `at` is the model's path, e.g. ['models', 2]. */
export function modelLifecycle(
  ctx: LifecycleContext,
  m: Raw,
  at: PathSegment[],
  defaults: ModelDefaults,
): { drainTimeoutMs: number; stopGraceMs: number; check: CheckConfig | null; rollout: RolloutConfig | null; liveness: LivenessConfig } {
  const check = m.check;
  const rollout = m.rollout;
  return {
    drainTimeoutMs: waitAt(ctx, m.drainTimeout, defaults.drainTimeoutMs, [...at, 'drainTimeout']),
    stopGraceMs: waitAt(ctx, m.stopGrace, defaults.stopGraceMs, [...at, 'stopGrace']),
    liveness: livenessOf(ctx, m.liveness, defaults.liveness ?? LIVENESS_DEFAULTS, [...at, 'liveness']),
    check:
      check === false
        ? null
        : check !== null && typeof check === 'object' && !Array.isArray(check)
          ? checkOf(ctx, check as Raw, [...at, 'check'])
          : defaults.check,
    rollout:
      rollout !== null && typeof rollout === 'object' && !Array.isArray(rollout)
        ? {
            canary: int(obj(rollout).canary) ?? LIFECYCLE_DEFAULTS.canary,
            holdMs: waitAt(ctx, obj(rollout).hold, LIFECYCLE_DEFAULTS.holdMs, [...at, 'rollout', 'hold']),
            maxErrorRate: num(obj(rollout).maxErrorRate) ?? LIFECYCLE_DEFAULTS.maxErrorRate,
          }
        : null,
  };
}
