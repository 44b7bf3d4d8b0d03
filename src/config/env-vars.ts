// `${VAR}` in cluster.yaml string values, read from the environment at load
// time. PR CI has no secrets, so an unset variable is a warning there and an
// error when reconciling (strictEnv). A value is never put into a message:
// webhook URLs and secrets are secrets.

import type { ConfigProblem } from '../types/config.js';
import { problemAt, type PathSegment, type YamlSource } from './yaml-source.js';

const REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

export interface EnvOptions {
  env: Record<string, string | undefined>;
  strict: boolean;
}

/** A copy of `value` with every `${VAR}` in its strings replaced ('' when unset). */
export function substituteEnv(
  src: YamlSource,
  value: unknown,
  opts: EnvOptions,
  out: { errors: ConfigProblem[]; warnings: ConfigProblem[] },
  path: PathSegment[] = [],
): unknown {
  if (typeof value === 'string') {
    if (!value.includes('${')) return value;
    return value.replace(REF, (_all, name: string) => {
      const v = opts.env[name];
      if (v !== undefined) return v;
      const problem = problemAt(src, path, `environment variable ${name} is not set`);
      (opts.strict ? out.errors : out.warnings).push(problem);
      return '';
    });
  }
  if (Array.isArray(value)) return value.map((v, i) => substituteEnv(src, v, opts, out, [...path, i]));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, substituteEnv(src, v, opts, out, [...path, k])]),
    );
  }
  return value;
}
