// Loading cluster.yaml and models.yaml: syntax, schema, then meaning, with
// every problem found reported at once. Returns a result and never throws:
// an invalid config is an expected input (a PR), not an exception.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ConfigProblem, LoadResult } from '../types/config.js';
import { getValidator, type SchemaName } from '../util/schema.js';
import { substituteEnv } from './env-vars.js';
import { obj } from './raw.js';
import { resolveCluster } from './resolve-cluster.js';
import { resolveModels } from './resolve-models.js';
import { schemaProblems } from './schema-problems.js';
import { parseYamlSource, type YamlSource } from './yaml-source.js';

export interface LoadOptions {
  /** Where `${VAR}`, USER and HOME come from. loadConfig: process.env; parseConfig: {} (HOME then falls back to the OS's). */
  env?: Record<string, string | undefined>;
  /** An unset `${VAR}` is an error (reconcile) rather than a warning (validate, PR CI). */
  strictEnv?: boolean;
  /** The repo directory as file names are printed; default: repoDir as given. */
  displayDir?: string;
}

export interface ConfigFileText {
  /** The file name as printed in problems, e.g. examples/demo/models.yaml. */
  name: string;
  text: string;
}

const EXPECTS: Record<'cluster' | 'models', string> = {
  cluster: 'a mapping with apiVersion: llmgw/v1 and kind: Cluster',
  models: 'a mapping with apiVersion: llmgw/v1 and kind: Models',
};

/** A file's text, or the one problem that kept it from being read. */
type FileInput = ConfigFileText | ConfigProblem;

function parseAndCheck(
  kind: SchemaName & keyof typeof EXPECTS,
  file: FileInput,
  errors: ConfigProblem[],
): YamlSource | null {
  if (!('text' in file)) {
    errors.push(file);
    return null;
  }
  const parsed = parseYamlSource(file.name, file.text, EXPECTS[kind]);
  if (!parsed.ok) {
    errors.push(parsed.error);
    return null;
  }
  const result = getValidator(kind)(parsed.source.value);
  if (!result.ok) errors.push(...schemaProblems(parsed.source, kind, result.errors));
  return parsed.source;
}

function byPosition(a: ConfigProblem, b: ConfigProblem): number {
  return a.line - b.line || a.col - b.col;
}

/** Sorted by position within each file, cluster.yaml first, each problem once. */
function tidy(problems: ConfigProblem[], files: string[]): ConfigProblem[] {
  const seen = new Set<string>();
  const unique = problems.filter((p) => {
    const key = `${p.file}\0${p.line}\0${p.col}\0${p.path}\0${p.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return files.flatMap((f) => unique.filter((p) => p.file === f).sort(byPosition));
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

/** The pure core of loadConfig: the two files' texts in, the config or every problem out. */
export function parseConfig(
  files: { cluster: ConfigFileText; models: ConfigFileText },
  opts: LoadOptions = {},
): LoadResult {
  return guarded(files, opts);
}

/** A bug in llmgw is still one line naming the file, never a crash of the caller. */
function guarded(files: { cluster: FileInput; models: FileInput }, opts: LoadOptions): LoadResult {
  try {
    return check(files, opts);
  } catch (err) {
    const file = fileName(files.cluster);
    const message = `internal error while loading the config: ${err instanceof Error ? err.message : String(err)}`;
    return { ok: false, errors: [{ file, line: 1, col: 1, path: '', message }], warnings: [] };
  }
}

function fileName(f: FileInput): string {
  return 'text' in f ? f.name : f.file;
}

function check(files: { cluster: FileInput; models: FileInput }, opts: LoadOptions): LoadResult {
  const env = opts.env ?? {};
  const errors: ConfigProblem[] = [];
  const warnings: ConfigProblem[] = [];
  const clusterSrc = parseAndCheck('cluster', files.cluster, errors);
  const modelsSrc = parseAndCheck('models', files.models, errors);

  const clusterRaw = clusterSrc
    ? obj(substituteEnv(clusterSrc, clusterSrc.value, { env, strict: opts.strictEnv ?? false }, { errors, warnings }))
    : undefined;
  const cluster = clusterSrc && clusterRaw ? resolveCluster({ src: clusterSrc, env, errors, warnings }, clusterRaw) : undefined;
  const models = modelsSrc
    ? resolveModels(
        { src: modelsSrc, errors, engines: declaredEngines(clusterRaw) },
        obj(modelsSrc.value),
      )
    : undefined;

  const names = [fileName(files.cluster), fileName(files.models)];
  if (errors.length > 0 || !cluster || !models) {
    return { ok: false, errors: tidy(errors, names), warnings: tidy(warnings, names) };
  }
  return { ok: true, config: { cluster, models }, warnings: tidy(warnings, names) };
}

async function readConfigFile(path: string, name: string): Promise<ConfigFileText | ConfigProblem> {
  try {
    return { name, text: await readFile(path, 'utf8') };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory, not a file' : `cannot read (${code ?? 'error'})`;
    return { file: name, line: 1, col: 1, path: '', message: why };
  }
}

/** Reads `cluster.yaml` and `models.yaml` of `repoDir` and loads them; never throws. */
export async function loadConfig(repoDir: string, opts: LoadOptions = {}): Promise<LoadResult> {
  const shown = opts.displayDir ?? repoDir;
  const [cluster, models] = await Promise.all([
    readConfigFile(join(repoDir, 'cluster.yaml'), join(shown, 'cluster.yaml')),
    readConfigFile(join(repoDir, 'models.yaml'), join(shown, 'models.yaml')),
  ]);
  return guarded({ cluster, models }, { ...opts, env: opts.env ?? process.env });
}
