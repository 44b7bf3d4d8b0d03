// ajv's findings on a config file, as `file:line:col: path: message` problems:
// an unknown key at the key (with "did you mean"), a missing key at its parent,
// anything else at the offending value.

import type { ConfigProblem } from '../types/config.js';
import { schemaDocument, type SchemaIssue, type SchemaName } from '../util/schema.js';
import { didYouMean } from './did-you-mean.js';
import { problemAt, type PathSegment, type YamlSource } from './yaml-source.js';

const NAME_RULE = 'must be lowercase letters, digits, ".", "_" or "-", starting with a letter or digit';

/**
 * Messages for patterns whose regular expression would mean nothing to a
 * reader: by the property that holds the pattern, where one pattern means two
 * things (`^/`), else by the pattern itself. ajv's schemaPath is relative to
 * the last $ref it followed, so a `$defs` name in it cannot be relied on.
 */
const BY_PROPERTY: [suffix: string, message: string][] = [
  ['/path/pattern', 'must be an absolute path'],
  ['/health/pattern', 'must be an HTTP path starting with /'],
  ['/proxyJump/pattern', 'must be user@host:port (user and port optional)'],
  ['/knownHosts/pattern', 'must be an absolute path or start with ~/'],
  ['/identityFile/pattern', 'must be an absolute path or start with ~/'],
  ['/slurmName/pattern', 'must be a Slurm node name: letters, digits, ".", "_" or "-", and {name} for the expanded name'],
];
const BY_PATTERN = new Map<string, string>([
  ['^(?=[0-9])(?:[0-9]+d)?(?:[0-9]+h)?(?:[0-9]+m)?(?:[0-9]+s)?$', 'must be a duration such as 90s, 10m, 6h, 2d or 1h30m'],
  ['^[a-z0-9][a-z0-9._-]*$', NAME_RULE],
  ['^[A-Za-z0-9][A-Za-z0-9._-]*$', 'must be letters, digits, ".", "_" or "-", starting with a letter or digit'],
  ['^[A-Za-z0-9._-]+$', 'must be a Slurm name: letters, digits, ".", "_" or "-"'],
  ["^[!#$%&'*+.^_`|~0-9A-Za-z-]+$", "must be an HTTP header name: letters, digits and !#$%&'*+.^_`|~-"],
]);

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

type SchemaNode = Record<string, unknown>;

function asNode(v: unknown): SchemaNode | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as SchemaNode) : undefined;
}

/** `node` with local $refs followed, and the branches (allOf, then, else) whose keys apply too. */
function branches(root: SchemaNode, node: SchemaNode | undefined, depth = 0): SchemaNode[] {
  if (!node || depth > 8) return [];
  const out: SchemaNode[] = [node];
  const ref = node.$ref;
  if (typeof ref === 'string' && ref.startsWith('#/')) {
    let target: unknown = root;
    for (const seg of ref.slice(2).split('/')) target = asNode(target)?.[seg.replace(/~1/g, '/').replace(/~0/g, '~')];
    out.push(...branches(root, asNode(target), depth + 1));
  }
  for (const sub of [...(Array.isArray(node.allOf) ? (node.allOf as unknown[]) : []), node.then, node.else])
    out.push(...branches(root, asNode(sub), depth + 1));
  return out;
}

/**
 * The keys allowed in the object at `path` of a document, found by walking
 * the schema along the document's path. ajv's schemaPath cannot say this: it
 * is relative to the last $ref, so every `$defs` object looked like the top level.
 */
function knownKeys(schema: SchemaName, path: readonly PathSegment[]): string[] {
  const root = schemaDocument(schema) as SchemaNode;
  let here: SchemaNode[] = [root];
  for (const seg of path) {
    const next: SchemaNode[] = [];
    for (const b of here.flatMap((n) => branches(root, n))) {
      const props = asNode(b.properties);
      const prop = typeof seg === 'string' && props && seg in props ? asNode(props[seg]) : undefined;
      const items = asNode(b.items);
      const additional = asNode(b.additionalProperties);
      if (typeof seg === 'string' && props && seg in props) {
        if (prop) next.push(prop);
      } else if (typeof seg === 'number' && items) next.push(items);
      else if (typeof seg === 'string' && additional) next.push(additional);
    }
    here = next;
  }
  const keys = new Set<string>();
  for (const b of here.flatMap((n) => branches(root, n))) for (const k of Object.keys(asNode(b.properties) ?? {})) keys.add(k);
  return [...keys];
}

function friendly(issue: SchemaIssue): string {
  if (issue.keyword !== 'pattern') return issue.message;
  const byProperty = BY_PROPERTY.find(([suffix]) => issue.schemaPath.endsWith(suffix))?.[1];
  return byProperty ?? BY_PATTERN.get(String(issue.params.pattern)) ?? issue.message;
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
      const hint = didYouMean(key, knownKeys(schema, path));
      return problemAt(src, [...path, key], `unknown key '${key}'${hint}`, 'key');
    }
    case 'const':
      // `check:` is a mapping or false; "must be false" would mislead about a typo'd mapping.
      if (issue.schemaPath.endsWith('/check/else/const')) return problemAt(src, path, 'must be a mapping (prompt, expect, timeout) or false');
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
