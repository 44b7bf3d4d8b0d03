// What package.json must keep true for `npm pack`'s tarball to install with no
// registry (docs/operations.md). `npm install --save` rewrites
// bundleDependencies without the package it adds, so a new dependency is caught
// here, in a second, rather than only by the slow tarball test.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

interface Pkg {
  dependencies: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  bundleDependencies: string[];
  files: string[];
  bin: Record<string, string>;
  scripts: Record<string, string>;
}

const pkg = JSON.parse(readFileSync(fileURLToPath(new URL('../../../package.json', import.meta.url)), 'utf8')) as Pkg;

test('every runtime dependency, optional ones included, travels inside the tarball', () => {
  const needed = [...Object.keys(pkg.dependencies), ...Object.keys(pkg.optionalDependencies ?? {})].sort();
  assert.equal([...pkg.bundleDependencies].sort(), needed);
});

test('the tarball holds what the installed commands read beside their code', () => {
  for (const f of ['dist/src', 'dist/schemas', 'dist/llmgw-node.mjs', 'schemas', 'examples', 'docs', 'src/sim/fake-nvidia-smi.sh']) {
    assert.ok(pkg.files.includes(f), `files lists ${f}`);
  }
  assert.is(pkg.bin.llmgw, 'dist/src/cli/main.js');
});

test('the build writes the node bundle, so npm test has it before the tests that copy it', () => {
  assert.match(pkg.scripts.build!, /node scripts\/bundle\.mjs/);
  assert.match(pkg.scripts.test!, /^npm run -s build && /);
});

test.run();
