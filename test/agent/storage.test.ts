import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scanStorage, unsafeWeightsPath, weightsStatus } from '../../src/agent/storage.js';

let root = '';
test.before(async () => {
  root = await mkdtemp(join(tmpdir(), 'llmgw-storage-'));
});
test.after(async () => {
  await rm(root, { recursive: true, force: true });
});

async function modelDir(name: string, files: Record<string, string>): Promise<string> {
  const dir = join(root, name);
  await mkdir(dir, { recursive: true });
  for (const [f, content] of Object.entries(files)) {
    await mkdir(join(dir, f, '..'), { recursive: true });
    await writeFile(join(dir, f), content);
  }
  return dir;
}

const index = (shards: string[]) => JSON.stringify({ metadata: {}, weight_map: Object.fromEntries(shards.map((s, i) => [`layer.${i}`, s])) });

test('a node told nothing reports no storage', async () => {
  const r = await scanStorage({ storage: [], weights: ['org/a'] });
  assert.equal(r, { storage: [], warnings: [] });
});

test('an empty directory is incomplete, never weights', async () => {
  const dir = await modelDir('empty', {});
  assert.equal(await weightsStatus(dir), { status: 'incomplete', why: 'no weights file' });
});

test('a directory whose only weights file is zero bytes is incomplete', async () => {
  const dir = await modelDir('zero', { 'model.safetensors': '', 'config.json': '{}' });
  assert.equal(await weightsStatus(dir), { status: 'incomplete', why: 'model.safetensors is empty' });
});

test('a zero-byte shard beside good ones is incomplete', async () => {
  const dir = await modelDir('zero-shard', { 'a.safetensors': 'x', 'b.safetensors': '' });
  assert.is((await weightsStatus(dir)).status, 'incomplete');
});

test('a partial-download marker (.incomplete, .part, .tmp) makes a directory incomplete', async () => {
  for (const marker of ['model-00002.safetensors.incomplete', 'model.bin.part', 'download.tmp']) {
    const dir = await modelDir(`marker-${marker}`, { 'model.safetensors': 'weights', [marker]: '' });
    assert.equal(await weightsStatus(dir), { status: 'incomplete', why: `partial download ${marker}` }, marker);
  }
});

test('a Hugging Face --local-dir download in progress (marker under .cache/huggingface/download) is incomplete', async () => {
  const dir = await modelDir('hf-progress', { 'model.safetensors': 'w', '.cache/huggingface/download/model-2.safetensors.incomplete': '' });
  assert.is((await weightsStatus(dir)).status, 'incomplete');
});

test('an index naming a missing shard is incomplete', async () => {
  const dir = await modelDir('missing-shard', {
    'model.safetensors.index.json': index(['model-00001-of-00002.safetensors', 'model-00002-of-00002.safetensors']),
    'model-00001-of-00002.safetensors': 'w',
  });
  assert.equal(await weightsStatus(dir), {
    status: 'incomplete',
    why: 'model.safetensors.index.json names model-00002-of-00002.safetensors, which is missing or empty',
  });
});

test('an unreadable index is incomplete', async () => {
  const dir = await modelDir('bad-index', { 'model.safetensors.index.json': '{not json', 'model-1.safetensors': 'w' });
  assert.is((await weightsStatus(dir)).status, 'incomplete');
});

test('a complete sharded directory is weights', async () => {
  const dir = await modelDir('complete', {
    'config.json': '{}',
    'model.safetensors.index.json': index(['model-00001-of-00002.safetensors', 'model-00002-of-00002.safetensors']),
    'model-00001-of-00002.safetensors': 'w1',
    'model-00002-of-00002.safetensors': 'w2',
  });
  assert.equal(await weightsStatus(dir), { status: 'complete', bytes: 4 });
});

test('a single .gguf file is weights; a missing directory is absent', async () => {
  assert.equal(await weightsStatus(await modelDir('gguf', { 'model-q4.gguf': 'gguf' })), { status: 'complete', bytes: 4 });
  assert.equal(await weightsStatus(join(root, 'nope')), { status: 'absent' });
});

test('storage lists complete weights in weights, half-written in incomplete, absent in neither, echoing path, kind and filer', async () => {
  await modelDir('store/org/done', { 'model.safetensors': 'w' });
  await modelDir('store/org/half', { 'model.safetensors': 'w', 'x.part': '' });
  const store = join(root, 'store');
  const r = await scanStorage({
    storage: [
      { path: store, kind: 'local' },
      { path: store, kind: 'shared', filer: 'lustre-a' },
    ],
    weights: ['org/done', 'org/half', 'org/absent'],
  });
  assert.equal(r.storage, [
    { path: store, kind: 'local', weights: ['org/done'], incomplete: ['org/half'], sizes: { 'org/done': { bytes: 1, config: null } } },
    { path: store, kind: 'shared', filer: 'lustre-a', weights: ['org/done'], incomplete: ['org/half'], sizes: { 'org/done': { bytes: 1, config: null } } },
  ]);
  assert.equal(r.warnings, []);
});

test('absolute and .. weights paths are ignored and named in warnings', async () => {
  await modelDir('store2/org/done', { 'model.safetensors': 'w' });
  const store = join(root, 'store2');
  await modelDir('outside', { 'model.safetensors': 'w' });
  const r = await scanStorage({ storage: [{ path: store, kind: 'local' }], weights: ['/etc', '../outside', 'org/../../outside', 'org/done'] });
  assert.equal(r.storage, [{ path: store, kind: 'local', weights: ['org/done'], incomplete: [], sizes: { 'org/done': { bytes: 1, config: null } } }]);
  assert.equal(r.warnings, [
    'ignored weights path "/etc": absolute',
    'ignored weights path "../outside": climbs out with ..',
    'ignored weights path "org/../../outside": climbs out with ..',
  ]);
  assert.is(unsafeWeightsPath('meta-llama/Llama-3.1-70B-Instruct'), null);
  assert.is(unsafeWeightsPath('a/..b'), null);
});

test('weights naming the storage directory itself (".", "./") are ignored and named in warnings', async () => {
  await modelDir('store3', { 'model.safetensors': 'w' });
  const store = join(root, 'store3');
  const r = await scanStorage({ storage: [{ path: store, kind: 'local' }], weights: ['.', './'] });
  assert.equal(r.storage, [{ path: store, kind: 'local', weights: [], incomplete: [] }]);
  assert.equal(r.warnings, ['ignored weights path ".": names the storage directory itself', 'ignored weights path "./": names the storage directory itself']);
  assert.is(unsafeWeightsPath('org/./m'), null);
});

test('a relative storage path is not looked in (relative to a login directory is a guess) and says so', async () => {
  const r = await scanStorage({ storage: [{ path: 'models', kind: 'local' }], weights: ['org/done'] });
  assert.equal(r.storage, [{ path: 'models', kind: 'local', weights: [], incomplete: [] }]);
  assert.equal(r.warnings, ['storage path "models" is not absolute; not looked in']);
});

test('a storage path that does not exist reports nothing there and says so', async () => {
  const missing = join(root, 'no-such-mount');
  const r = await scanStorage({ storage: [{ path: missing, kind: 'local' }], weights: ['org/done'] });
  assert.equal(r.storage, [{ path: missing, kind: 'local', weights: [], incomplete: [] }]);
  assert.equal(r.warnings, [`storage path ${JSON.stringify(missing)} is missing or unreadable`]);
});

test('only the top level is read: weights in a subdirectory do not count', async () => {
  const dir = await modelDir('nested', { 'sub/model.safetensors': 'w' });
  assert.equal(await weightsStatus(dir), { status: 'incomplete', why: 'no weights file' });
});

test.run();
