// The JSON Schemas of schemas/ as run-time validators. The same files serve
// editors (yaml-language-server) and ajv, so they cannot drift apart.
// Compiling is the expensive part (ajv's compiler alone is ≈125 ms of
// `llmgw status`): the build precompiles each schema into
// dist/schemas/<name>.validate.cjs (scripts/build-schemas.mjs), and only
// without that file, or when the schema changed since, is ajv loaded and the
// schema compiled here, on first use and once per process.

import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';

export const SCHEMA_NAMES = [
  'cluster',
  'models',
  'agent-report',
  'agent-report-request',
  'agent-apply-request',
  'agent-apply-reply',
  'router-usage',
  'router-endpoints',
  'snapshot',
  'state',
] as const;

export type SchemaName = (typeof SCHEMA_NAMES)[number];

export interface SchemaIssue {
  /** JSON Pointer to the offending value, '' for the document itself. */
  instancePath: string;
  message: string;
  /** The schema keyword that failed (required, additionalProperties, type, …). */
  keyword: string;
  params: Record<string, unknown>;
  /** Where in the schema the check lives, e.g. #/$defs/duration/pattern. */
  schemaPath: string;
  /** Set when the failing value is a map key (a `propertyNames` check), not the value at instancePath. */
  propertyName?: string;
}

export type SchemaResult = { ok: true } | { ok: false; errors: SchemaIssue[] };
export type Validator = (data: unknown) => SchemaResult;

/** The package's schemas/ directory (this file is dist/src/util/schema.js). */
export const SCHEMA_DIR = fileURLToPath(new URL('../../../schemas/', import.meta.url));

/** Where the build puts the precompiled validators (dist/schemas/). */
const PRECOMPILED_DIR = fileURLToPath(new URL('../../schemas/', import.meta.url));

// Synchronous loading keeps getValidator synchronous: the precompiled files are
// CommonJS, and ajv (CommonJS too) is only needed for the fallback.
const require = createRequire(import.meta.url);

/**
 * ajv's options, for the run-time compile and scripts/build-schemas.mjs alike,
 * so both give the same errors. The schemas are checked against the
 * meta-schema by the tests, not on every run, and ajv's code optimiser costs
 * more to run than it saves on our sizes: both keep the fallback fast.
 */
export const AJV_OPTIONS = { allErrors: true, strict: false, validateSchema: false, code: { optimize: false } } as const;

let ajv: Ajv2020 | undefined;
const added = new Set<string>();
const cache = new Map<SchemaName, Validator>();
/** Validators compiled into a one-file bundle (scripts/bundle.mjs), which has no files beside it to load. */
const builtIn = new Map<SchemaName, Compiled>();

const documents = new Map<string, unknown>();

function schemaFile(stem: string): string {
  return `${stem}.schema.json`;
}

function readSchemaFile(file: string): unknown {
  let doc = documents.get(file);
  if (doc === undefined) {
    doc = JSON.parse(readFileSync(SCHEMA_DIR + file, 'utf8')) as unknown;
    documents.set(file, doc);
  }
  return doc;
}

/** The parsed schema document, e.g. to list the keys an object may have. */
export function schemaDocument(name: SchemaName): unknown {
  return readSchemaFile(schemaFile(name));
}

/** Adds a schema and, first, the sibling files it $refs, so ajv can resolve them. */
function addWithRefs(engine: Ajv2020, file: string): void {
  if (added.has(file)) return;
  added.add(file);
  const schema = readSchemaFile(file);
  for (const ref of siblingRefs(schema)) addWithRefs(engine, ref);
  engine.addSchema(schema as object);
}

function siblingRefs(node: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const v of node) siblingRefs(v, out);
  else if (node !== null && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string' && !v.startsWith('#')) out.add(v.split('#', 1)[0] ?? v);
      else siblingRefs(v, out);
    }
  }
  return out;
}

function toIssue(e: ErrorObject): SchemaIssue {
  const issue: SchemaIssue = {
    instancePath: e.instancePath,
    message: e.message ?? `fails ${e.keyword}`,
    keyword: e.keyword,
    params: e.params as Record<string, unknown>,
    schemaPath: e.schemaPath,
  };
  if (e.propertyName !== undefined) issue.propertyName = e.propertyName;
  return issue;
}

/** A schema's validate function either way: ajv leaves the errors of the last call on the function. */
export interface Compiled {
  (data: unknown): boolean;
  errors?: ErrorObject[] | null;
}

/** What scripts/build-schemas.mjs writes: ajv's standalone code, plus the schema texts it was made from. */
interface Precompiled extends Compiled {
  sources: Record<string, string>;
}

/** The build's validator for a schema, or undefined when absent or made from other schema texts. */
function precompiled(name: SchemaName): Compiled | undefined {
  const path = `${PRECOMPILED_DIR}${name}.validate.cjs`;
  if (!existsSync(path)) return undefined;
  const mod = require(path) as Precompiled;
  const current = Object.entries(mod.sources).every(([file, text]) => {
    try {
      return readFileSync(SCHEMA_DIR + file, 'utf8') === text;
    } catch {
      return false;
    }
  });
  return current ? mod : undefined;
}

/** Compiles a schema at run time: ajv's compiler, loaded only now. */
function compile(name: SchemaName): Compiled {
  if (!ajv) {
    const { Ajv2020: Engine } = require('ajv/dist/2020.js') as { Ajv2020: typeof Ajv2020 };
    ajv = new Engine(AJV_OPTIONS);
  }
  const file = schemaFile(name);
  addWithRefs(ajv, file);
  return ajv.getSchema(`https://llmgw.dev/schemas/${file}`) as ValidateFunction;
}

/**
 * Hands this module validators to use before any file: what dist/llmgw-node.mjs
 * does at start, since a node that runs only that file has neither schemas/
 * nor ajv beside it (docs/operations.md).
 */
export function useBuiltInValidators(validators: Partial<Record<SchemaName, Compiled>>): void {
  for (const [name, validate] of Object.entries(validators) as [SchemaName, Compiled][]) builtIn.set(name, validate);
}

/** A validator for one of the schemas of schemas/: built in, the build's, or compiled on first use. */
export function getValidator(name: SchemaName): Validator {
  const hit = cache.get(name);
  if (hit) return hit;
  const compiled = builtIn.get(name) ?? precompiled(name) ?? compile(name);
  const validator: Validator = (data) => (compiled(data) ? { ok: true } : { ok: false, errors: (compiled.errors ?? []).map(toIssue) });
  cache.set(name, validator);
  return validator;
}

/**
 * Issues as one short line, e.g. `/gpus/0/index: must be integer; /replicas:
 * must be array`. For replies from a host, so a bad reply is that host's one error.
 */
export function formatSchemaIssues(issues: SchemaIssue[], max = 3): string {
  const lines = issues
    // `if`/`then` wrappers only restate the error of the branch that failed.
    .filter((i) => i.keyword !== 'if')
    .map((i) => {
      const at = i.instancePath || '/';
      if (i.keyword === 'additionalProperties') return `${at}: unknown property '${String(i.params.additionalProperty)}'`;
      if (i.keyword === 'enum') return `${at}: must be one of ${(i.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
      return `${at}: ${i.message}`;
    });
  const unique = [...new Set(lines)];
  const more = unique.length > max ? `; and ${unique.length - max} more` : '';
  return unique.slice(0, max).join('; ') + more;
}
