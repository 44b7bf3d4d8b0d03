// The JSON Schemas of schemas/ as run-time validators. The same files serve
// editors (yaml-language-server) and ajv, so they cannot drift apart.
// Compiling is the expensive part: each schema is compiled on first use only,
// and once per process.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';

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

let ajv: Ajv2020 | undefined;
const added = new Set<string>();
const cache = new Map<SchemaName, Validator>();

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
      if (k === '$ref' && typeof v === 'string' && !v.startsWith('#')) out.add(v.split('#')[0]);
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

/** A validator for one of the schemas of schemas/, compiled on first use. */
export function getValidator(name: SchemaName): Validator {
  const hit = cache.get(name);
  if (hit) return hit;
  // The schemas are checked against the meta-schema by the tests, not on every
  // run, and ajv's code optimiser costs more to run than it saves on our sizes:
  // both keep `llmgw status` fast to start.
  ajv ??= new Ajv2020({ allErrors: true, strict: false, validateSchema: false, code: { optimize: false } });
  const engine = ajv;
  const file = schemaFile(name);
  addWithRefs(engine, file);
  const compiled = engine.getSchema(`https://llmgw.dev/schemas/${file}`) as ValidateFunction;
  const validator: Validator = (data) =>
    compiled(data) ? { ok: true } : { ok: false, errors: (compiled.errors ?? []).map(toIssue) };
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
