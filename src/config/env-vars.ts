// `${VAR}` in cluster.yaml string values, read from the environment at load
// time. PR CI has no secrets, so an unset variable is a warning there and an
// error when reconciling (strictEnv). A value is never put into a message:
// webhook URLs and secrets are secrets.

import type { ConfigProblem } from '../types/config.js';
import { problemAt, type PathSegment, type YamlSource } from './yaml-source.js';

const REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

export interface EnvOptions {
  env: Record<string, string | undefined>;
  /** An unset variable is an error (true) or a warning (false); a function decides per path (`notify.webhooks[0].url`). */
  strict: boolean | ((path: string) => boolean);
}

export interface EnvOutcome {
  errors: ConfigProblem[];
  warnings: ConfigProblem[];
  /**
   * Paths whose value came whole from set variables. The schema saw `${VAR}`
   * there, not the value, so these are checked again after substitution: a
   * proxyJump from the environment must not be dropped silently for being malformed.
   */
  substituted?: PathSegment[][];
}

/**
 * For commands that observe the fleet but send no notifications (gather, and
 * status/plan gathering live): an unset variable is an error in what they use
 * (ssh, hosts), a warning in notify, whose secrets they never need.
 */
export function strictExceptNotify(path: string): boolean {
  return !(path === 'notify' || path.startsWith('notify.'));
}

/** A copy of `value` with every `${VAR}` in its strings replaced ('' when unset). */
export function substituteEnv(
  src: YamlSource,
  value: unknown,
  opts: EnvOptions,
  out: EnvOutcome,
  path: PathSegment[] = [],
): unknown {
  if (typeof value === 'string') {
    if (!value.includes('${')) return value;
    let unset = false;
    const replaced = value.replace(REF, (_all, name: string) => {
      const v = opts.env[name];
      if (v !== undefined) return v;
      unset = true;
      const problem = problemAt(src, path, `environment variable ${name} is not set`);
      const strict = typeof opts.strict === 'function' ? opts.strict(problem.path) : opts.strict;
      (strict ? out.errors : out.warnings).push(problem);
      return '';
    });
    if (replaced !== value && !unset) out.substituted?.push(path);
    return replaced;
  }
  if (Array.isArray(value)) return value.map((v, i) => substituteEnv(src, v, opts, out, [...path, i]));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, substituteEnv(src, v, opts, out, [...path, k])]),
    );
  }
  return value;
}
