// cluster.yaml's `engines:` -> EngineConfig by name: the argv template, ports,
// health and timeouts, and `allowArgs`, the globs a model's args must match
// (docs/security.md: a models.yaml-only PR must not choose the engine's flags).

import type { EngineConfig } from '../types/config.js';
import { compileGlob, type Glob } from './arg-glob.js';
import { COMMAND_PLACEHOLDERS, unknownPlaceholders } from './placeholders.js';
import { arr, int, obj, str, type Raw } from './raw.js';
import type { ResolveContext } from './resolve-cluster.js';
import { timeoutAt } from './resolve-ssh.js';
import { problemAt } from './yaml-source.js';

const DEFAULTS = { basePort: 8000, health: '/health', startTimeout: '20m' } as const;

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
