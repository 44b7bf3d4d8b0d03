// Loading cluster.yaml and models.yaml: syntax, schema, then meaning, with
// every problem found reported at once. Returns a result and never throws:
// an invalid config is an expected input (a PR), not an exception.

import type { ConfigProblem, LoadResult } from '../types/config.js';
import { escapeTerminal } from '../text/terminal-text.js';
import { getValidator, type SchemaName } from '../util/schema.js';
import { openEngines, unseenClasses } from './advice.js';
import { readConfigFile, type ConfigFileText, type FileInput } from './config-files.js';
import { fromEnvNote, isEnvPlace, misplacedRefs, substituteEnv, type Substituted } from './env-vars.js';
import { nonFiniteNumbers } from './finite-numbers.js';
import { diskPathProblems } from '../store/paths.js';
import { realpathSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import type { HostFacts } from './resolve-context.js';
import type { ObservedGpus, ObservedGpusResult } from '../types/observed-gpus.js';
import { obj } from './raw.js';
import { resolveCluster } from './resolve-cluster.js';
import { BUILT_IN_DEFAULTS, resolveModelDefaults } from './resolve-lifecycle.js';
import { resolveModels } from './resolve-models.js';
import { schemaProblems } from './schema-problems.js';
import { parseYamlSource, type YamlSource } from './yaml-source.js';

export type { ConfigFileText } from './config-files.js';

export interface LoadOptions {
  /** Where `${VAR}`, USER and HOME come from. loadConfig: process.env; parseConfig: {} (HOME then falls back to the OS's). */
  env?: Record<string, string | undefined>;
  /**
   * An unset `${VAR}` is an error (reconcile) rather than a warning (validate, PR CI);
   * a function decides by the value's path, so `gather` can need the SSH settings but not the webhook secrets.
   */
  strictEnv?: boolean | ((path: string) => boolean);
  /** The repo directory as file names are printed; default: repoDir as given. */
  displayDir?: string;
  /**
   * The config repo on disk: ssh.knownHosts and ssh.identityFile must lie
   * outside it. loadConfig sets it; parseConfig checks it only when given.
   */
  repoDir?: string;
  /**
   * validate's extra warnings: each engine without allowArgs, and each
   * model gpuClass that no GPU of the committed snapshot has (given as data:
   * config/ reads only cluster.yaml and models.yaml).
   */
  advise?: boolean;
  /** For parseConfig with advise: the GPU products of a snapshot, or null for none. */
  observedGpus?: ObservedGpus | null;
  /** For loadConfig with advise: the committed snapshot's GPU products as src/store read them, or why they were ignored. */
  observed?: ObservedGpusResult;
}

const EXPECTS: Record<'cluster' | 'models', string> = {
  cluster: 'a mapping with apiVersion: llmgw/v1 and kind: Cluster',
  models: 'a mapping with apiVersion: llmgw/v1 and kind: Models',
};

/** What one load collects: `errors` may be silenced at a path where a `primary` error already explains the value. */
interface Found {
  primary: ConfigProblem[];
  errors: ConfigProblem[];
  warnings: ConfigProblem[];
  /** `file\0path` of each value a primary error is about. */
  quiet: Set<string>;
}

/** What parseAndCheck finds in one file's text: a pure function of (kind, name, text). */
interface Checked {
  src: YamlSource | null;
  primary: ConfigProblem[];
  errors: ConfigProblem[];
  quiet: string[];
}

function parseAndCheckText(kind: SchemaName & keyof typeof EXPECTS, name: string, text: string): Checked {
  const parsed = parseYamlSource(name, text, EXPECTS[kind]);
  if (!parsed.ok) return { src: null, primary: [parsed.error], errors: [], quiet: [] };
  const src = parsed.source;
  const primary: ConfigProblem[] = [];
  // Values a schema would misjudge (Infinity passes `integer`) or that must not
  // be there at all: their own error, and no second one from later checks.
  const quiet = [...nonFiniteNumbers(src, primary), ...misplacedRefs(src, primary, kind === 'cluster' ? isEnvPlace : () => false)];
  const result = getValidator(kind)(src.value);
  return { src, primary, errors: result.ok ? [] : schemaProblems(src, kind, result.errors), quiet: quiet.map((path) => `${src.file}\0${path}`) };
}

/**
 * The last text of each file and what it held. A steady `llmgw run` loads the
 * same two files every tick, and parsing and schema-checking a 10,000-node
 * cluster.yaml is most of a tick's own CPU: the same text is not parsed again.
 * Everything after this step copies what it changes (env-vars.ts, the
 * resolvers), so the one parsed document is shared, never written to. One
 * entry per kind: bounded, however many repos a process loads.
 */
const lastChecked = new Map<string, { name: string; text: string; checked: Checked }>();

function parseAndCheck(kind: SchemaName & keyof typeof EXPECTS, file: FileInput, found: Found): YamlSource | null {
  if (!('text' in file)) {
    found.primary.push(file);
    return null;
  }
  const last = lastChecked.get(kind);
  const checked = last !== undefined && last.name === file.name && last.text === file.text ? last.checked : parseAndCheckText(kind, file.name, file.text);
  lastChecked.set(kind, { name: file.name, text: file.text, checked });
  found.primary.push(...checked.primary);
  found.errors.push(...checked.errors);
  for (const q of checked.quiet) found.quiet.add(q);
  return checked.src;
}

function byPosition(a: ConfigProblem, b: ConfigProblem): number {
  return a.line - b.line || a.col - b.col;
}

/**
 * Sorted by position within each file (cluster.yaml first), each problem once,
 * and escaped: a message quotes keys and values from a PR, which must not reach
 * a terminal as control characters.
 */
function tidy(problems: ConfigProblem[], files: string[]): ConfigProblem[] {
  const seen = new Set<string>();
  const unique = problems
    .map((p) => ({ file: escapeTerminal(p.file), line: p.line, col: p.col, path: escapeTerminal(p.path), message: escapeTerminal(p.message) }))
    .filter((p) => {
      const key = `${p.file}\0${p.line}\0${p.col}\0${p.path}\0${p.message}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  const shown = files.map(escapeTerminal);
  return shown.flatMap((f) => unique.filter((p) => p.file === f).sort(byPosition));
}

/**
 * Schema problems of values that came from the environment: the first check saw
 * `${VAR}`, not the value. Reported where the `${VAR}` is written, naming the
 * variable; the value itself never appears (it may be a secret).
 */
function recheckSubstituted(src: YamlSource, value: Record<string, unknown>, substituted: Substituted[]): ConfigProblem[] {
  const complete = substituted.filter((s) => s.complete);
  if (complete.length === 0) return [];
  const result = getValidator('cluster')(value);
  if (result.ok) return [];
  const pointer = (p: readonly (string | number)[]) => '/' + p.map((s) => String(s).replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
  const wanted = new Map(complete.map((s) => [pointer(s.path), s.path]));
  return result.errors.flatMap((issue) => {
    const path = wanted.get(issue.instancePath);
    if (path === undefined) return [];
    return schemaProblems({ ...src, value }, 'cluster', [issue]).map((p) => ({ ...p, message: `${p.message}${fromEnvNote(complete, path)}` }));
  });
}

/**
 * Engine names models.yaml may use; undefined (no check) when cluster.yaml has
 * no engines map to check against, so one missing key is not reported once per model.
 */
function declaredEngines(clusterRaw: Record<string, unknown> | undefined): string[] | undefined {
  const engines = clusterRaw?.engines;
  if (engines === null || typeof engines !== 'object' || Array.isArray(engines)) return undefined;
  return Object.keys(engines);
}

function fileName(f: FileInput): string {
  return 'text' in f ? f.name : f.file;
}

function check(files: { cluster: FileInput; models: FileInput }, opts: LoadOptions): LoadResult {
  const env = opts.env ?? {};
  const found: Found = { primary: [], errors: [], warnings: [], quiet: new Set() };
  const { errors, warnings } = found;
  const clusterSrc = parseAndCheck('cluster', files.cluster, found);
  const modelsSrc = parseAndCheck('models', files.models, found);

  const substituted: Substituted[] = [];
  const clusterRaw = clusterSrc
    ? obj(substituteEnv(clusterSrc, clusterSrc.value, { env, strict: opts.strictEnv ?? false }, { errors, warnings, substituted }))
    : undefined;
  if (clusterSrc && clusterRaw) errors.push(...recheckSubstituted(clusterSrc, clusterRaw, substituted));
  const ctx = clusterSrc ? { src: clusterSrc, env, errors, warnings, substituted, repoDir: opts.repoDir, host: hostFacts() } : undefined;
  const resolved = ctx && clusterRaw ? resolveCluster(ctx, clusterRaw) : undefined;
  const defaults = ctx && clusterRaw ? resolveModelDefaults(ctx, obj(clusterRaw.defaults)) : BUILT_IN_DEFAULTS;
  const models = modelsSrc
    ? resolveModels({ src: modelsSrc, errors, engines: declaredEngines(clusterRaw), argRules: resolved?.argRules, defaults }, obj(modelsSrc.value))
    : undefined;
  const cluster = resolved?.cluster;
  if (opts.advise && cluster && clusterSrc) {
    warnings.push(...openEngines(clusterSrc, cluster));
    if (models && modelsSrc && opts.observedGpus) warnings.push(...unseenClasses(modelsSrc, cluster, models, opts.observedGpus));
  }

  const names = [fileName(files.cluster), fileName(files.models)];
  const all = [...found.primary, ...errors.filter((p) => !found.quiet.has(`${p.file}\0${p.path}`))];
  if (all.length > 0 || !cluster || !models) {
    return { ok: false, errors: tidy(all, names), warnings: tidy(warnings, names) };
  }
  const stopDefaults = { drainTimeoutMs: defaults.drainTimeoutMs, stopGraceMs: defaults.stopGraceMs };
  return { ok: true, config: { cluster: { ...cluster, stopDefaults }, models }, warnings: tidy(warnings, names) };
}

/** A bug in llmgw is still one line naming the file, never a crash of the caller. */
function guarded(files: { cluster: FileInput; models: FileInput }, opts: LoadOptions): LoadResult {
  try {
    return check(files, opts);
  } catch (err) {
    const file = fileName(files.cluster);
    const message = `internal error while loading the config: ${err instanceof Error ? err.message : String(err)}`;
    return { ok: false, errors: tidy([{ file, line: 1, col: 1, path: '', message }], [file]), warnings: [] };
  }
}

/** The pure core of loadConfig: the two files' texts in, the config or every problem out. */
/** This machine's facts the config's meaning depends on (resolve-context.ts): looked up here, the config's one reader, so the resolvers stay pure. */
export function hostFacts(): HostFacts {
  let user = 'root';
  try {
    user = userInfo().username;
  } catch {
    // No password database entry (a container's arbitrary uid): ssh would say root's name too.
  }
  return { home: homedir(), user, realpath: (p) => realpathSync.native(p) };
}

export function parseConfig(files: { cluster: ConfigFileText; models: ConfigFileText }, opts: LoadOptions = {}): LoadResult {
  return guarded(files, opts);
}

/** Reads `cluster.yaml` and `models.yaml` of `repoDir` and loads them; never throws. */
export async function loadConfig(repoDir: string, opts: LoadOptions = {}): Promise<LoadResult> {
  const shown = opts.displayDir ?? repoDir;
  const [cluster, models] = await Promise.all([readConfigFile(repoDir, shown, 'cluster.yaml'), readConfigFile(repoDir, shown, 'models.yaml')]);
  const observed = opts.advise ? opts.observed : undefined;
  const result = guarded({ cluster, models }, { repoDir, ...opts, env: opts.env ?? process.env, observedGpus: observed?.ok ? observed.gpus : null });
  if (observed && !observed.ok) result.warnings.push(...tidy([observed.warning], [observed.warning.file]));
  // llmgw's own files must be regular files too (docs/security.md): otherwise the branch is invalid.
  return withRepoProblems(result, await diskPathProblems(repoDir, shown));
}

/**
 * `result` with problems found beside the two YAML files (STATUS.md or
 * .llmgw/ not being a regular file or directory) added after theirs, each
 * once: any of them makes the config invalid, so nothing is applied.
 */
export function withRepoProblems(result: LoadResult, extra: ConfigProblem[]): LoadResult {
  if (extra.length === 0) return result;
  const key = (p: ConfigProblem) => `${p.file}\0${p.line}\0${p.col}\0${p.path}\0${p.message}`;
  const added = tidy(extra, [...new Set(extra.map((p) => p.file))]);
  const before = result.ok ? [] : result.errors;
  const seen = new Set(before.map(key));
  return { ok: false, errors: [...before, ...added.filter((p) => !seen.has(key(p)))], warnings: result.warnings };
}
