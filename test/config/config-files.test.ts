// loadConfig on a repo on disk that a pull request shaped (docs/security.md):
// links, FIFOs, huge files and misnamed files are each one line at file:1:1,
// and nothing outside the repo is read.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readObservedGpus } from '../../src/store/observed-gpus.js';
import { loadConfig } from '../../src/config/load-config.js';
import { formatProblem } from '../../src/errors.js';

const demo = fileURLToPath(new URL('../../../examples/demo/', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'llmgw-files-'));
const outside = join(work, 'outside-secret');
writeFileSync(outside, 'apiVersion: llmgw/v1\nkind: Cluster\nname: PRIVATE-KEY-MATERIAL\n');
let n = 0;

/** A fresh copy of examples/demo under work/<n>/repo, HOME at work/<n>. */
function repo(): { dir: string; home: string } {
  const home = join(work, String(n++));
  const dir = join(home, 'repo');
  cpSync(demo, dir, { recursive: true });
  return { dir, home };
}

async function problems(dir: string, home: string, advise = false) {
  const observed = advise ? await readObservedGpus(dir, 'repo') : undefined;
  const r = await loadConfig(dir, { env: { HOME: home }, displayDir: 'repo', advise, observed });
  return { errors: r.ok ? [] : r.errors.map(formatProblem), warnings: r.warnings.map(formatProblem), all: JSON.stringify(r) };
}

test('a symbolic link for cluster.yaml is an error and nothing is read through it', async () => {
  const { dir, home } = repo();
  rmSync(join(dir, 'cluster.yaml'));
  symlinkSync(outside, join(dir, 'cluster.yaml'));
  const { errors, all } = await problems(dir, home);
  assert.equal(errors, [
    'repo/cluster.yaml:1:1: cluster.yaml is a symbolic link: llmgw reads only regular files from the config repo, and read nothing through it',
  ]);
  assert.not.match(all, 'PRIVATE');
});

test('a symbolic link for models.yaml, even to a file inside the repo, is an error too', async () => {
  const { dir, home } = repo();
  renameSync(join(dir, 'models.yaml'), join(dir, 'real-models.yaml'));
  symlinkSync('real-models.yaml', join(dir, 'models.yaml'));
  assert.equal((await problems(dir, home)).errors, [
    'repo/models.yaml:1:1: models.yaml is a symbolic link: llmgw reads only regular files from the config repo, and read nothing through it',
  ]);
});

test('a FIFO for models.yaml is one line, not a reader blocked for ever', async () => {
  const { dir, home } = repo();
  rmSync(join(dir, 'models.yaml'));
  execFileSync('mkfifo', [join(dir, 'models.yaml')]);
  assert.equal((await problems(dir, home)).errors, ['repo/models.yaml:1:1: models.yaml is not a regular file (a FIFO, socket or device): not read']);
});

test('a 50 MB models.yaml is refused by its size', async () => {
  const { dir, home } = repo();
  writeFileSync(join(dir, 'models.yaml'), '');
  truncateSync(join(dir, 'models.yaml'), 50 * 1024 * 1024);
  assert.equal((await problems(dir, home)).errors, ['repo/models.yaml:1:1: the file is 50 MiB; a config file may be at most 4 MiB']);
});

test('cluster.yml instead of cluster.yaml: the error says what it found', async () => {
  const { dir, home } = repo();
  renameSync(join(dir, 'cluster.yaml'), join(dir, 'cluster.yml'));
  renameSync(join(dir, 'models.yaml'), join(dir, 'Models.yaml'));
  assert.equal((await problems(dir, home)).errors, [
    'repo/cluster.yaml:1:1: no such file; found cluster.yml: did you mean cluster.yaml? (llmgw reads only that name)',
    'repo/models.yaml:1:1: no such file; found Models.yaml: did you mean models.yaml? (llmgw reads only that name)',
  ]);
});

test('loadConfig knows the repo: a knownHosts inside it is an error', async () => {
  const { dir, home } = repo();
  const text = readFileSync(join(dir, 'cluster.yaml'), 'utf8');
  writeFileSync(join(dir, 'cluster.yaml'), text.replace('knownHosts: ~/.ssh/known_hosts', `knownHosts: ${join(dir, 'known_hosts')}`));
  assert.equal((await problems(dir, home)).errors, [
    'repo/cluster.yaml:9:15: ssh.knownHosts: must be outside the config repo: a file the repo holds is a file a pull request can change',
  ]);
});

test('advise reads the committed snapshot; a bad one is ignored with one warning, never an error', async () => {
  const { dir, home } = repo();
  writeFileSync(join(dir, '.llmgw', 'observed.json'), '{"version": 1, "nodes": [');
  const bad = await problems(dir, home, true);
  assert.equal(bad.errors, []);
  assert.ok(bad.warnings.includes("repo/.llmgw/observed.json:1:1: ignored for validate's hints: not valid JSON"), bad.warnings.join('\n'));
  writeFileSync(join(dir, '.llmgw', 'observed.json'), '');
  truncateSync(join(dir, '.llmgw', 'observed.json'), 257 * 1024 * 1024);
  assert.ok(
    (await problems(dir, home, true)).warnings.includes("repo/.llmgw/observed.json:1:1: ignored for validate's hints: it is 257 MiB, more than 256 MiB"),
  );
});

test('advise reads no snapshot through a link: .llmgw or observed.json as a symlink is ignored', async () => {
  const { dir, home } = repo();
  rmSync(join(dir, '.llmgw', 'observed.json'));
  symlinkSync(outside, join(dir, '.llmgw', 'observed.json'));
  const file = await problems(dir, home, true);
  assert.ok(file.warnings.includes("repo/.llmgw/observed.json:1:1: ignored for validate's hints: it is a symbolic link"));
  assert.not.match(file.all, 'PRIVATE');
  rmSync(join(dir, '.llmgw'), { recursive: true });
  mkdirSync(join(home, 'elsewhere'));
  symlinkSync(join(home, 'elsewhere'), join(dir, '.llmgw'));
  assert.ok((await problems(dir, home, true)).warnings.includes("repo/.llmgw/observed.json:1:1: ignored for validate's hints: .llmgw is a symbolic link"));
});

test.after(() => rmSync(work, { recursive: true, force: true }));

test.run();
