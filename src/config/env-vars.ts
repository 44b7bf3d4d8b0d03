// `${VAR}` in cluster.yaml, read from the environment at load time, and only
// in the few places that hold secrets (docs/security.md): the webhooks' url,
// secret and header values, and ssh.identityFile. Anywhere else a `${…}` is an
// error: a node name or host built from the environment would put a secret
// into an error message, STATUS.md or a DNS query (`x.${SECRET}.invalid`).
// PR CI has no secrets, so an unset variable is a warning there and an error
// when reconciling (strict). A value is never put into a message; messages
// name the variable instead.

import type { ConfigProblem } from '../types/config.js';
import { walkValues } from './value-walk.js';
import { formatPath, problemAt, type PathSegment, type YamlSource } from './yaml-source.js';

/** A `${…}` as written: a well-formed reference has a name of letters, digits and `_`. */
const ANY_REF = /\$\{([^}]*)\}/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface EnvOptions {
  env: Record<string, string | undefined>;
  /** An unset variable is an error (true) or a warning (false); a function decides per path (`notify.webhooks[0].url`). */
  strict: boolean | ((path: string) => boolean);
}

/** A value that came (in part) from the environment, and which variables it used. */
export interface Substituted {
  path: PathSegment[];
  /** `${NAME}` of each variable used, in order, each once. */
  vars: string[];
  /** Whether every variable used was set (otherwise the value has '' in its place). */
  complete: boolean;
}

export interface EnvOutcome {
  errors: ConfigProblem[];
  warnings: ConfigProblem[];
  substituted: Substituted[];
}

/** The places `${VAR}` is read from the environment. */
export function isEnvPlace(path: readonly PathSegment[]): boolean {
  const [a, b, i, c, d] = path;
  if (a === 'ssh') return path.length === 2 && b === 'identityFile';
  if (a !== 'notify' || b !== 'webhooks' || typeof i !== 'number') return false;
  if (path.length === 4) return c === 'url' || c === 'secret';
  return path.length === 5 && c === 'headers' && typeof d === 'string';
}

export const ENV_PLACES = 'notify.webhooks[].url, .secret, .headers and ssh.identityFile';

/**
 * For commands that observe the fleet but send no notifications (gather, and
 * status/plan gathering live): an unset variable is an error in what they use
 * (ssh), a warning in notify, whose secrets they never need.
 */
export function strictExceptNotify(path: string): boolean {
  return !(path === 'notify' || path.startsWith('notify.'));
}

/**
 * `${…}` written anywhere but the places `allowed` accepts (isEnvPlace for
 * cluster.yaml, none in models.yaml): one error per value, naming the
 * reference. Returns the paths reported, so other checks of those values stay quiet.
 */
export function misplacedRefs(src: YamlSource, errors: ConfigProblem[], allowed: (path: readonly PathSegment[]) => boolean): Set<string> {
  const at = new Set<string>();
  walkValues(src.value, (value, pathOf, key) => {
    for (const [text, where] of [
      [key, 'key'],
      [value, 'value'],
    ] as const) {
      if (typeof text !== 'string' || !text.includes('${')) continue;
      const ref = /\$\{[^}]*\}/.exec(text)?.[0];
      if (ref === undefined) continue;
      const path = pathOf();
      if (where === 'value' && allowed(path)) continue;
      errors.push(problemAt(src, path, `${ref} is not read from the environment here: only in ${ENV_PLACES}`, where));
      at.add(formatPath(path));
    }
  });
  return at;
}

function substituteOne(src: YamlSource, text: string, path: PathSegment[], opts: EnvOptions, out: EnvOutcome): string {
  const vars: string[] = [];
  let complete = true;
  // Set inside the replace callback: typed wide so the check below is not narrowed to `false`.
  let malformed = false as boolean;
  const replaced = text.replace(ANY_REF, (all, name: string) => {
    if (!NAME.test(name)) {
      malformed = true;
      return all;
    }
    if (!vars.includes(`\${${name}}`)) vars.push(`\${${name}}`);
    const v = opts.env[name];
    if (v !== undefined) return v;
    complete = false;
    const problem = problemAt(src, path, `environment variable ${name} is not set`);
    const strict = typeof opts.strict === 'function' ? opts.strict(problem.path) : opts.strict;
    (strict ? out.errors : out.warnings).push(problem);
    return '';
  });
  if (malformed) {
    out.errors.push(problemAt(src, path, 'a ${…} must name a variable: letters, digits and _, not starting with a digit'));
  }
  if (vars.length > 0) out.substituted.push({ path, vars, complete });
  return replaced;
}

/**
 * A copy of cluster.yaml's data with every `${VAR}` in the places above
 * replaced ('' when unset). Strings elsewhere are left as written (they were
 * reported by misplacedRefs).
 */
export function substituteEnv(src: YamlSource, value: unknown, opts: EnvOptions, out: EnvOutcome): unknown {
  const root = value as { notify?: { webhooks?: unknown } | null; ssh?: unknown } | null;
  if (root === null || typeof root !== 'object') return value;
  const copy: Record<string, unknown> = { ...root };
  const ssh = root.ssh;
  if (ssh !== null && typeof ssh === 'object' && !Array.isArray(ssh)) {
    const s = { ...(ssh as Record<string, unknown>) };
    if (typeof s.identityFile === 'string') s.identityFile = substituteOne(src, s.identityFile, ['ssh', 'identityFile'], opts, out);
    copy.ssh = s;
  }
  const notify = root.notify;
  const hooks = notify !== null && typeof notify === 'object' ? notify.webhooks : undefined;
  if (Array.isArray(hooks)) {
    const webhooks = hooks.map((hook: unknown, i) => {
      if (hook === null || typeof hook !== 'object' || Array.isArray(hook)) return hook;
      const h = { ...(hook as Record<string, unknown>) };
      for (const key of ['url', 'secret'] as const) {
        if (typeof h[key] === 'string') h[key] = substituteOne(src, h[key], ['notify', 'webhooks', i, key], opts, out);
      }
      const headers = h.headers;
      if (headers !== null && typeof headers === 'object' && !Array.isArray(headers)) {
        h.headers = Object.fromEntries(
          Object.entries(headers as Record<string, unknown>).map(([name, v]) => [
            name,
            typeof v === 'string' ? substituteOne(src, v, ['notify', 'webhooks', i, 'headers', name], opts, out) : v,
          ]),
        );
      }
      return h;
    });
    copy.notify = { ...(notify as Record<string, unknown>), webhooks };
  }
  return copy;
}

/** ` (after substituting ${A}, ${B})` for a problem found in a value from the environment; '' otherwise. */
export function fromEnvNote(substituted: readonly Substituted[], path: readonly PathSegment[]): string {
  const key = formatPath(path);
  const hit = substituted.find((s) => formatPath(s.path) === key);
  return hit ? ` (after substituting ${hit.vars.join(', ')})` : '';
}
