// The package as an operator gets it (docs/operations.md): `npm pack` of this
// checkout, installed with `npm install -g --offline` into an empty prefix by an
// npm whose cache is empty and whose PATH holds nothing but node and sh — no
// registry to fetch from, no compiler to build with — and then `llmgw --help`
// and `llmgw demo` run from that prefix. The tests run against the build that
// `npm test` just made (the pack runs no scripts).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const T = mkdtempSync(join(tmpdir(), 'llmgw-tarball-'));
const PREFIX = join(T, 'prefix');
const INSTALLED = join(PREFIX, 'lib', 'node_modules', 'llmgw');
let tarball = '';

/** npm's own CLI script, run by this node: the npm a machine with only Node has. */
function npmCli(): string {
  const found = spawnSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).stdout.trim();
  assert.ok(found, 'npm is not on PATH');
  return realpathSync(found);
}

function run(cmd: string, args: string[], opts: { cwd: string; env: Record<string, string>; timeout?: number }) {
  return spawnSync(cmd, args, { ...opts, encoding: 'utf8', timeout: opts.timeout ?? 120_000, maxBuffer: 64 * 1024 * 1024 });
}

/** The env of an operator's shell after the install: the prefix's bin first, git beside it. */
function userEnv(): Record<string, string> {
  mkdirSync(join(T, 'tmp'), { recursive: true });
  return { PATH: `${join(PREFIX, 'bin')}:${process.env.PATH}`, HOME: join(T, 'home'), TMPDIR: join(T, 'tmp'), NO_COLOR: '1' };
}

test.before(() => {
  mkdirSync(join(T, 'pack'));
  const packed = run(process.execPath, [npmCli(), 'pack', '--ignore-scripts', '--json', '--pack-destination', join(T, 'pack')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? T, npm_config_cache: join(T, 'pack-cache') },
  });
  assert.is(packed.status, 0, packed.stderr);
  const [info] = JSON.parse(packed.stdout) as { filename: string }[];
  tarball = join(T, 'pack', info!.filename);

  // A PATH with node and sh alone: no compiler, no git, no python.
  const bin = join(T, 'only-node');
  mkdirSync(bin);
  symlinkSync(process.execPath, join(bin, 'node'));
  symlinkSync('/bin/sh', join(bin, 'sh'));
  for (const d of ['cache', 'home']) mkdirSync(join(T, d));
  writeFileSync(join(T, 'empty-npmrc'), '');
  const installed = run(process.execPath, [npmCli(), 'install', '-g', '--offline', '--no-audit', '--no-fund', '--prefix', PREFIX, tarball], {
    cwd: T,
    env: { PATH: bin, HOME: join(T, 'home'), npm_config_cache: join(T, 'cache'), npm_config_userconfig: join(T, 'empty-npmrc') },
    timeout: 300_000,
  });
  assert.is(installed.status, 0, `npm install -g of the tarball failed:\n${installed.stdout}\n${installed.stderr}`);
});

test.after(() => {
  rmSync(T, { recursive: true, force: true });
});

test('npm pack names the tarball after the version, and ships the build without the tests and benchmarks', () => {
  assert.is(tarball.split('/').pop(), `llmgw-${VERSION}.tgz`);
  assert.ok(existsSync(join(INSTALLED, 'dist', 'src', 'cli', 'main.js')));
  assert.not.ok(existsSync(join(INSTALLED, 'dist', 'test')), 'dist/test is not shipped');
  assert.not.ok(existsSync(join(INSTALLED, 'dist', 'bench')), 'dist/bench is not shipped');
});

test('the installed package carries its runtime libraries, the node bundle, the demo config, the fake nvidia-smi and the docs', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  const shipped = readdirSync(join(INSTALLED, 'node_modules'));
  for (const dep of Object.keys(pkg.dependencies)) assert.ok(shipped.includes(dep), `${dep} travels in the tarball`);
  for (const f of [
    'dist/llmgw-node.mjs',
    'examples/demo/cluster.yaml',
    'examples/demo/models.yaml',
    'src/sim/fake-nvidia-smi.sh',
    'docs/operations.md',
    'schemas/cluster.schema.json',
    'action.yml',
  ]) {
    assert.ok(existsSync(join(INSTALLED, f)), `${f} is installed`);
  }
});

test('llmgw --help and --version run from the prefix', () => {
  const help = run(join(PREFIX, 'bin', 'llmgw'), ['--help'], { cwd: T, env: userEnv() });
  assert.is(help.status, 0, help.stderr);
  assert.match(help.stdout, /^llmgw: the declarative GitOps reconciler for GPU fleets serving LLMs\n/);
  assert.match(help.stdout, /\n {2}demo {2,}/);
  const version = run(join(PREFIX, 'bin', 'llmgw'), ['--version'], { cwd: T, env: userEnv() });
  assert.is(version.stdout, `${VERSION}\n`);
});

test('llmgw demo runs from the installed copy: a fleet reconciled, a request served, everything stopped', () => {
  const bin = join(PREFIX, 'bin', 'llmgw');
  assert.ok(realpathSync(bin).startsWith(INSTALLED + '/'), 'the llmgw on PATH is the installed one');
  const demo = run(bin, ['demo'], { cwd: T, env: userEnv(), timeout: 150_000 });
  assert.is(demo.status, 0, `${demo.stdout}\n${demo.stderr}`);
  assert.match(demo.stdout, /-> 200: Hello from the llmgw stub engine\./);
  assert.match(demo.stdout, /llmgw: started deepseek-v3, .* \(demo\)/);
  assert.match(demo.stdout, /Stopped every engine, SSH server and the router/);
  // The demo's work directory is under this test's TMPDIR, not the checkout.
  assert.match(demo.stdout, new RegExp(`The reconciler's checkout: ${join(T, 'tmp')}/`));
});

test.run();
