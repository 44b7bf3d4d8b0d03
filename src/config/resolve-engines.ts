// cluster.yaml's `engines:` -> EngineConfig by name: the argv template, ports,
// health and timeouts, and `allowArgs`, the globs a model's args must match
// (docs/security.md: a models.yaml-only PR must not choose the engine's flags).

import type { EngineConfig, EngineMetrics } from '../types/config.js';
import { compileGlob, type Glob } from './arg-glob.js';
import { COMMAND_PLACEHOLDERS, unknownPlaceholders } from './placeholders.js';
import { arr, int, obj, str, type Raw } from './raw.js';
import type { ResolveContext } from './resolve-context.js';
import { timeoutAt } from './resolve-ssh.js';
import { problemAt } from './yaml-source.js';

const DEFAULTS = { basePort: 8000, health: '/health', startTimeout: '20m' } as const;

/** vLLM's own names (SGLang's differ, which is why they are settings). */
export const METRICS_DEFAULTS: EngineMetrics = {
  path: '/metrics',
  running: 'vllm:num_requests_running',
  waiting: 'vllm:num_requests_waiting',
  progress: 'vllm:generation_tokens_total',
};

/**
 * `metrics:` over vLLM's defaults; vLLM's whole entry when the engine writes
 * none (a stall is then seen out of the box, and an engine without the page
 * answers 404, which costs nothing); undefined for `metrics: false`. The schema
 * has checked the shape.
 */
function metricsOf(raw: unknown): EngineMetrics | undefined {
  if (raw === false) return undefined;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return { ...METRICS_DEFAULTS };
  const m = obj(raw);
  return {
    path: str(m.path) ?? METRICS_DEFAULTS.path,
    running: str(m.running) ?? METRICS_DEFAULTS.running,
    waiting: str(m.waiting) ?? METRICS_DEFAULTS.waiting,
    progress: str(m.progress) ?? METRICS_DEFAULTS.progress,
  };
}

/** Engine name -> its compiled allowArgs; an engine absent here accepts any args. */
export type ArgRules = Map<string, Glob[]>;

export function resolveEngines(ctx: ResolveContext, raw: Raw): { engines: Record<string, EngineConfig>; argRules: ArgRules } {
  const engines: Record<string, EngineConfig> = {};
  const argRules: ArgRules = new Map();
  for (const [name, value] of Object.entries(obj(raw.engines))) {
    const e = obj(value);
    arr(e.command).forEach((part, j) => {
      if (typeof part !== 'string') return;
      for (const message of unknownPlaceholders(part, COMMAND_PLACEHOLDERS)) {
        ctx.errors.push(problemAt(ctx.src, ['engines', name, 'command', j], message));
      }
    });
    const engine: EngineConfig = {
      name,
      command: arr(e.command).filter((c): c is string => typeof c === 'string'),
      basePort: int(e.basePort) ?? DEFAULTS.basePort,
      health: str(e.health) ?? DEFAULTS.health,
      startTimeoutMs: timeoutAt(ctx, e.startTimeout, DEFAULTS.startTimeout, ['engines', name, 'startTimeout']),
    };
    const metrics = metricsOf(e.metrics);
    if (metrics !== undefined) engine.metrics = metrics;
    if (Array.isArray(e.allowArgs)) {
      const globs: Glob[] = [];
      const allowArgs: string[] = [];
      engine.allowArgs = allowArgs;
      e.allowArgs.forEach((g, j) => {
        if (typeof g !== 'string') return;
        allowArgs.push(g);
        const compiled = compileGlob(g);
        if (compiled.ok) globs.push(compiled.glob);
        else ctx.errors.push(problemAt(ctx.src, ['engines', name, 'allowArgs', j], `glob ${compiled.error}`));
      });
      argRules.set(name, globs);
    }
    engines[name] = engine;
  }
  return { engines, argRules };
}
