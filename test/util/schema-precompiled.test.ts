// The build precompiles schemas/ into dist/schemas/*.validate.cjs
// (scripts/build-schemas.mjs) so commands start without ajv's compiler. These
// tests build into a temporary directory, so they hold whether or not the
// worktree's dist/schemas/ is current.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { AJV_OPTIONS, SCHEMA_DIR, SCHEMA_NAMES, type SchemaName } from '../../src/util/schema.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const require = createRequire(import.meta.url);
const tmp = mkdtempSync(join(tmpdir(), 'llmgw-schemas-'));
// The generated code requires ajv's run-time helpers, as it does from dist/.
symlinkSync(join(ROOT, 'node_modules'), join(tmp, 'node_modules'));

function build(outDir: string): void {
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts/build-schemas.mjs'), '--out', outDir], { encoding: 'utf8' });
  assert.is(r.status, 0, r.stderr);
}

const built = join(tmp, 'built');
build(built);

interface Compiled {
  (data: unknown): boolean;
  errors?: unknown[] | null;
}

/** Every leaf of a document replaced, one at a time, by a value of the wrong type; the first `max` of them. */
function wrongTypes(doc: unknown, max: number): unknown[] {
  const out: unknown[] = [];
  function walk(node: unknown, replace: (v: unknown) => unknown): void {
    if (out.length >= max) return;
    if (Array.isArray(node)) node.forEach((v, i) => walk(v, (x) => replace(node.map((w, j) => (j === i ? x : w)))));
    else if (node !== null && typeof node === 'object') {
      for (const [k, v] of Object.entries(node)) walk(v, (x) => replace({ ...node, [k]: x }));
      out.push(replace({ ...node, unknownKey: 1 }));
    } else out.push(replace(typeof node === 'string' ? 12 : typeof node === 'number' ? 'x' : -1));
  }
  walk(doc, (v) => v);
  return out;
}

function samples(name: SchemaName): unknown[] {
  const observed = JSON.parse(readFileSync(join(ROOT, 'examples/large/.llmgw/observed.json'), 'utf8'));
  const yaml = (file: string) => parse(readFileSync(join(ROOT, file), 'utf8'), { merge: true }) as unknown;
  const valid: Record<SchemaName, unknown[]> = {
    cluster: [yaml('examples/demo/cluster.yaml'), yaml('examples/large/cluster.yaml')],
    models: [yaml('examples/demo/models.yaml'), yaml('examples/large/models.yaml')],
    'agent-report': [observed.nodes.find((n: { reachable: boolean }) => n.reachable).report],
    'agent-report-request': [{ version: 1, node: 'n', storage: [{ path: '/models', kind: 'local' }], weights: ['a/b'] }],
    'agent-apply-request': [{ version: 1, node: 'n', start: [], stop: ['m-0'] }],
    'agent-apply-reply': [{ version: 1, results: [{ replica: 'a-1', op: 'start', ok: false, error: 'x' }] }],
    'router-usage': [{ version: 1, startedAt: '2026-11-29T07:00:00Z', lastUsed: { 'm-0': '2026-11-29T07:59:30Z' } }],
    'router-endpoints': [{ version: 1, models: { m: [{ replica: 'm-0', url: 'http://h:8000' }] } }],
    snapshot: [{ ...observed, nodes: observed.nodes.slice(0, 3) }],
    state: [{ version: 1 }],
  };
  return [null, [], {}, 'x', { version: 2, bogus: true }, ...valid[name].flatMap((d) => [d, ...wrongTypes(d, 60)])];
}

test('the precompiled validators accept and reject exactly what ajv compiled at run time does, with the same errors', () => {
  const ajv = new Ajv2020(AJV_OPTIONS);
  for (const name of SCHEMA_NAMES) ajv.addSchema(JSON.parse(readFileSync(`${SCHEMA_DIR}${name}.schema.json`, 'utf8')));
  let rejected = 0;
  for (const name of SCHEMA_NAMES) {
    const runtime = ajv.getSchema(`https://llmgw.dev/schemas/${name}.schema.json`)!;
    const standalone = require(join(built, `${name}.validate.cjs`)) as Compiled;
    for (const doc of samples(name)) {
      const ok = runtime(doc);
      assert.is(standalone(doc), ok, `${name}: ${JSON.stringify(doc).slice(0, 80)}`);
      if (!ok) rejected += 1;
      assert.equal(standalone.errors ?? null, runtime.errors ?? null, `${name}: ${JSON.stringify(doc).slice(0, 80)}`);
    }
  }
  assert.ok(rejected > 300, `${rejected} rejected samples`);
});

/** A package tree of its own: schema.js, schemas/ and the build's validators (unless `withBuild` is false). */
function packageTree(withBuild: boolean): string {
  const dir = mkdtempSync(join(tmp, 'pkg-'));
  mkdirSync(join(dir, 'dist/src/util'), { recursive: true });
  cpSync(join(ROOT, 'dist/src/util/schema.js'), join(dir, 'dist/src/util/schema.js'));
  cpSync(SCHEMA_DIR, join(dir, 'schemas'), { recursive: true });
  if (withBuild) cpSync(built, join(dir, 'dist/schemas'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  return dir;
}

/** Runs getValidator in a fresh process: whether the data validates, and whether ajv's compiler was loaded. */
function validateIn(dir: string, name: SchemaName, data: unknown): { ok: boolean; compilerLoaded: boolean } {
  const script = `
    import { createRequire } from 'node:module';
    import { getValidator } from './dist/src/util/schema.js';
    const res = getValidator(${JSON.stringify(name)})(${JSON.stringify(data)});
    const loaded = Object.keys(createRequire(import.meta.url).cache).some((k) => k.includes('/ajv/dist/compile/'));
    process.stdout.write(JSON.stringify({ ok: res.ok, compilerLoaded: loaded }));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: dir, encoding: 'utf8' });
  assert.is(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as { ok: boolean; compilerLoaded: boolean };
}

const usage = { version: 1, startedAt: '2026-11-29T07:00:00Z', lastUsed: {} };

test("getValidator uses the build's validator and never loads ajv's compiler", () => {
  assert.equal(validateIn(packageTree(true), 'snapshot', { version: 1 }), { ok: false, compilerLoaded: false });
  assert.equal(validateIn(packageTree(true), 'router-usage', usage), { ok: true, compilerLoaded: false });
});

test("without the build's validators getValidator compiles the schema at run time", () => {
  assert.equal(validateIn(packageTree(false), 'router-usage', usage), { ok: true, compilerLoaded: true });
  assert.equal(validateIn(packageTree(false), 'router-usage', { version: 1 }), { ok: false, compilerLoaded: true });
});

test('a schema changed since the build is compiled at run time, never checked by the stale validator', () => {
  const dir = packageTree(true);
  const file = join(dir, 'schemas/router-usage.schema.json');
  const schema = JSON.parse(readFileSync(file, 'utf8'));
  schema.required = [...schema.required, 'newField'];
  writeFileSync(file, JSON.stringify(schema, null, 2));
  assert.equal(validateIn(dir, 'router-usage', usage), { ok: false, compilerLoaded: true });
  // snapshot.schema.json $refs router-usage.schema.json: its build is stale too.
  assert.equal(validateIn(dir, 'snapshot', { version: 1 }).compilerLoaded, true);
});

test.after(() => rmSync(tmp, { recursive: true, force: true }));

test.run();
