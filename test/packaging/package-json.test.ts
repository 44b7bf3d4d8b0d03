// What package.json must keep true for `npm pack`'s tarball to install with no
// registry (docs/operations.md). `npm install --save` rewrites
// bundleDependencies without the package it adds, so a new dependency is caught
// here, in a second, rather than only by the slow tarball test.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

interface Pkg {
  dependencies: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  bundleDependencies: string[];
  files: string[];
  bin: Record<string, string>;
  scripts: Record<string, string>;
}

const script = fileURLToPath(new URL('../../../scripts/pack-manifest.mjs', import.meta.url));
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

test('npm pack builds, then packs a manifest without prepare (no install script to warn about), and puts the original back', () => {
  assert.match(pkg.scripts.prepack!, /^npm run -s build && node scripts\/pack-manifest\.mjs strip$/);
  assert.is(pkg.scripts.postpack, 'node scripts/pack-manifest.mjs restore');
  const dir = mkdtempSync(join(tmpdir(), 'llmgw-pack-'));
  try {
    const original = readFileSync(fileURLToPath(new URL('../../../package.json', import.meta.url)), 'utf8');
    writeFileSync(join(dir, 'package.json'), original);
    const run = (mode: string) => spawnSync(process.execPath, [script, mode, dir], { encoding: 'utf8' });
    assert.is(run('strip').status, 0);
    const packed = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Pkg;
    assert.is(packed.scripts.prepare, undefined, 'the packed manifest has no prepare');
    assert.equal({ ...packed.scripts, prepare: pkg.scripts.prepare }, pkg.scripts, 'and nothing else changed in its scripts');
    assert.equal(packed.bundleDependencies, pkg.bundleDependencies);
    const again = run('strip');
    assert.is.not(again.status, 0, 'an interrupted pack is not stripped twice (the original would be lost)');
    assert.match(again.stderr, /package\.json\.orig exists/);
    assert.is(run('restore').status, 0);
    assert.is(readFileSync(join(dir, 'package.json'), 'utf8'), original, 'restored byte for byte');
    assert.not.ok(existsSync(join(dir, 'package.json.orig')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
