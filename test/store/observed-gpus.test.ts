// The GPU products of the committed snapshot, for validate's gpuClass hint:
// read only as a regular file under a real .llmgw/, and anything unexpected
// is one warning (never an error) or, when there is no snapshot, nothing.

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readObservedGpus } from '../../src/store/observed-gpus.js';

let repo = '';
test.before.each(() => {
  repo = mkdtempSync(join(tmpdir(), 'llmgw-observed-gpus-'));
});
test.after.each(() => rmSync(repo, { recursive: true, force: true }));

const FILE = 'repo/.llmgw/observed.json';
const ignored = (why: string) => ({ ok: false, warning: { file: FILE, line: 1, col: 1, path: '', message: `ignored for validate's hints: ${why}` } });

async function withSnapshot(text: string) {
  mkdirSync(join(repo, '.llmgw'), { recursive: true });
  writeFileSync(join(repo, '.llmgw', 'observed.json'), text);
  return readObservedGpus(repo, 'repo');
}

test('no snapshot (no .llmgw/, or no observed.json in it) is no hint and no warning', async () => {
  assert.equal(await readObservedGpus(repo, 'repo'), { ok: true, gpus: null });
  mkdirSync(join(repo, '.llmgw'));
  assert.equal(await readObservedGpus(repo, 'repo'), { ok: true, gpus: null });
});

test('a .llmgw that cannot even be looked at (name too long) counts as no snapshot, not as an unreadable one', async () => {
  assert.equal(await readObservedGpus(join(repo, 'r'.repeat(300)), 'repo'), { ok: true, gpus: null });
});

test('a .llmgw that is a file, or an observed.json that is a FIFO, a directory or unreadable, is ignored with a warning saying which', async () => {
  writeFileSync(join(repo, '.llmgw'), 'not a directory');
  assert.equal(await readObservedGpus(repo, 'repo'), ignored('.llmgw is not a directory'));
  rmSync(join(repo, '.llmgw'));
  mkdirSync(join(repo, '.llmgw'));
  execFileSync('mkfifo', [join(repo, '.llmgw', 'observed.json')]);
  assert.equal(await readObservedGpus(repo, 'repo'), ignored('not a regular file'));
  rmSync(join(repo, '.llmgw', 'observed.json'));
  mkdirSync(join(repo, '.llmgw', 'observed.json'));
  assert.equal(await readObservedGpus(repo, 'repo'), ignored('not a regular file'));
  // A repo so deep that .llmgw/ can be looked at but .llmgw/observed.json is past PATH_MAX (4096).
  let deep = repo;
  while (deep.length < 4080) deep = join(deep, 'd'.repeat(Math.max(1, Math.min(200, 4080 - deep.length - 1))));
  mkdirSync(join(deep, '.llmgw'), { recursive: true });
  assert.equal(await readObservedGpus(deep, 'repo'), ignored('cannot read (ENAMETOOLONG)'));
});

test('JSON that is not a version-1 object with a nodes list is "not an llmgw snapshot"', async () => {
  const not = ignored('not an llmgw snapshot (expected "version": 1 and "nodes")');
  for (const text of ['null', '5', '"snapshot"', '{"version": 2, "nodes": []}', '{"version": 1, "nodes": {}}', '{"version": 1}']) {
    assert.equal(await withSnapshot(text), not, text);
  }
});

test('the products are every distinct GPU name, sorted: the live report of a reachable node, the last one of an unreachable node', async () => {
  const nodes = [
    null,
    { reachable: false },
    { reachable: true, report: {} },
    { reachable: true, report: { gpus: [{ name: 'NVIDIA H100 80GB HBM3' }, {}, null, { name: 5 }] } },
    { reachable: false, lastReport: { gpus: [{ name: 'NVIDIA A100-SXM4-80GB' }] }, report: { gpus: [{ name: 'stale' }] } },
    { reachable: true, report: { gpus: [{ name: 'NVIDIA A100-SXM4-80GB' }] }, lastReport: { gpus: [{ name: 'old' }] } },
  ];
  assert.equal(await withSnapshot(JSON.stringify({ version: 1, nodes })), {
    ok: true,
    gpus: { file: FILE, products: ['NVIDIA A100-SXM4-80GB', 'NVIDIA H100 80GB HBM3'] },
  });
});

test.run();
