#!/usr/bin/env node
// Precompiles every schema of schemas/ into a standalone validator,
// dist/schemas/<name>.validate.cjs, so a command validates without loading
// ajv's compiler (≈125 ms of `llmgw status`'s start). src/util/schema.ts uses
// these files when present and made from the current schema texts, and
// compiles at run time otherwise (e.g. a source tree before this step ran).
// Runs after tsc (`npm run build`): it takes ajv's options from the compiled
// schema.ts, so both paths give the same errors.
//
//   node scripts/build-schemas.mjs [--out DIR]   default dist/schemas/
//
// CommonJS because the code ajv generates `require`s its small run-time
// helpers (ajv/dist/runtime/equal, ucs2length); schema.ts loads it with
// createRequire, which keeps getValidator synchronous.

import { mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Ajv2020 } from 'ajv/dist/2020.js';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { AJV_OPTIONS, SCHEMA_DIR } from '../dist/src/util/schema.js';

const { values } = parseArgs({ options: { out: { type: 'string' } } });
const outDir = values.out ? pathToFileURL(resolve(values.out) + '/') : new URL('../dist/schemas/', import.meta.url);
const schemaDir = pathToFileURL(SCHEMA_DIR);

const ajv = new Ajv2020({ ...AJV_OPTIONS, code: { ...AJV_OPTIONS.code, source: true } });

const files = readdirSync(schemaDir)
  .filter((f) => f.endsWith('.schema.json'))
  .sort();
const texts = new Map(files.map((f) => [f, readFileSync(new URL(f, schemaDir), 'utf8')]));
for (const text of texts.values()) ajv.addSchema(JSON.parse(text));

/** The sibling schema files a schema $refs, itself included, transitively. */
function closure(file, out = new Set()) {
  if (out.has(file)) return out;
  out.add(file);
  const refs = texts.get(file).matchAll(/"\$ref"\s*:\s*"([^"#]+)/g);
  for (const [, ref] of refs) closure(ref, out);
  return out;
}

mkdirSync(outDir, { recursive: true });
for (const file of files) {
  const name = file.replace(/\.schema\.json$/, '');
  const validate = ajv.getSchema(`https://llmgw.dev/schemas/${file}`);
  if (!validate) throw new Error(`${file}: no schema with $id https://llmgw.dev/schemas/${file}`);
  // The schema texts this code was made from: schema.ts ignores the file when
  // one changed since, rather than validate against a stale schema. The text
  // itself, not a hash: comparing strings is cheaper than loading node:crypto.
  const sources = Object.fromEntries([...closure(file)].sort().map((f) => [f, texts.get(f)]));
  const code = `${standaloneCode(ajv, validate)}\nmodule.exports.sources = ${JSON.stringify(sources)};\n`;
  const target = new URL(`${name}.validate.cjs`, outDir);
  // Write then rename: a command starting meanwhile never loads half a file.
  writeFileSync(new URL(`${name}.validate.cjs.tmp`, outDir), code);
  renameSync(new URL(`${name}.validate.cjs.tmp`, outDir), target);
}
process.stdout.write(`build-schemas: ${files.length} validators in ${outDir.pathname}\n`);
