// ajv's findings on a config file, as `file:line:col: path: message` problems:
// an unknown key at the key (with "did you mean"), a missing key at its parent,
// anything else at the offending value.

import type { ConfigProblem } from '../types/config.js';
import { schemaDocument, type SchemaIssue, type SchemaName } from '../util/schema.js';
import { didYouMean } from './did-you-mean.js';
import { problemAt, type PathSegment, type YamlSource } from './yaml-source.js';

/** Messages for patterns whose regular expression would mean nothing to a reader. */
const PATTERN_MESSAGES: [suffix: string, message: string][] = [
  ['/$defs/duration/pattern', 'must be a duration such as 90s, 10m, 6h, 2d or 1h30m'],
  ['/$defs/name/pattern', 'must be lowercase letters, digits, ".", "_" or "-", starting with a letter or digit'],
  ['/$defs/model/properties/name/pattern', 'must be lowercase letters, digits, ".", "_" or "-", starting with a letter or digit'],
  ['/$defs/className/pattern', 'must be letters, digits, ".", "_" or "-", starting with a letter or digit'],
  ['/path/pattern', 'must be an absolute path'],
  ['/health/pattern', 'must be an HTTP path starting with /'],
  ['/proxyJump/pattern', 'must be user@host:port (user and port optional)'],
];

function pointerToPath(pointer: string, data: unknown): PathSegment[] {
  if (pointer === '') return [];
  const out: PathSegment[] = [];
  let node = data;
  for (const raw of pointer.slice(1).split('/')) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    const key: PathSegment = Array.isArray(node) ? Number(seg) : seg;
    out.push(key);
    node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[key as string] : undefined;
  }
  return out;
}

/** The keys the schema object at `schemaPath` (minus its last keyword) allows. */
function knownKeys(schema: SchemaName, schemaPath: string): string[] {
  let node = schemaDocument(schema);
  for (const seg of schemaPath.replace(/^#\//, '').split('/').slice(0, -1)) {
    node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[seg] : undefined;
  }
  const props = node !== null && typeof node === 'object' ? (node as { properties?: object }).properties : undefined;
  return props ? Object.keys(props) : [];
}

function friendly(issue: SchemaIssue): string {
  if (issue.keyword !== 'pattern') return issue.message;
  return PATTERN_MESSAGES.find(([suffix]) => issue.schemaPath.endsWith(suffix))?.[1] ?? issue.message;
}

function one(src: YamlSource, schema: SchemaName, issue: SchemaIssue): ConfigProblem | null {
  const path = pointerToPath(issue.instancePath, src.value);
  const p = issue.params;
  // A map key that fails `propertyNames` (an engine or class name) is reported at the key.
  if (issue.propertyName !== undefined) {
    const key = issue.propertyName;
    return problemAt(src, [...path, key], `name '${key}' ${friendly(issue)}`, 'key');
  }
  switch (issue.keyword) {
    case 'if': // restates the failure of its `then`, which is reported too
    case 'propertyNames': // restates the failure of the name's own check, reported at the key
      return null;
    case 'required':
      return problemAt(src, path, `missing required key '${String(p.missingProperty)}'`);
    case 'additionalProperties': {
      const key = String(p.additionalProperty);
      const hint = didYouMean(key, knownKeys(schema, issue.schemaPath));
      return problemAt(src, [...path, key], `unknown key '${key}'${hint}`, 'key');
    }
    case 'const':
      return problemAt(src, path, `must be ${JSON.stringify(p.allowedValue)}`);
    case 'enum':
      return problemAt(src, path, `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`);
    case 'uniqueItems':
      return problemAt(src, [...path, Number(p.i)], `duplicate of item ${String(p.j)}`);
    case 'pattern':
      return problemAt(src, path, friendly(issue));
    default:
      return problemAt(src, path, issue.message);
  }
}

export function schemaProblems(src: YamlSource, schema: SchemaName, issues: SchemaIssue[]): ConfigProblem[] {
  const out: ConfigProblem[] = [];
  for (const issue of issues) {
    const problem = one(src, schema, issue);
    if (problem) out.push(problem);
  }
  return out;
}
