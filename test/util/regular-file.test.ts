import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatBytes, readRegularFile } from '../../src/util/regular-file.js';

const dir = mkdtempSync(join(tmpdir(), 'llmgw-regular-'));
const secret = join(dir, 'secret-key');
writeFileSync(secret, 'PRIVATE KEY MATERIAL');

test('a regular file within the cap is read whole', async () => {
  writeFileSync(join(dir, 'a.yaml'), 'hello: world\n');
  assert.equal(await readRegularFile(join(dir, 'a.yaml'), 1024), { ok: true, text: 'hello: world\n' });
});

test('a symbolic link is refused and nothing is read through it', async () => {
  symlinkSync(secret, join(dir, 'link.yaml'));
  const r = await readRegularFile(join(dir, 'link.yaml'), 1024);
  assert.equal(r, { ok: false, why: 'symlink' });
  assert.not.match(JSON.stringify(r), 'PRIVATE');
});

test('a link to a directory, a directory, and a missing file are each told apart', async () => {
  mkdirSync(join(dir, 'd'));
  symlinkSync(join(dir, 'd'), join(dir, 'dlink'));
  assert.equal(await readRegularFile(join(dir, 'dlink'), 1024), { ok: false, why: 'symlink' });
  assert.equal(await readRegularFile(join(dir, 'd'), 1024), { ok: false, why: 'directory' });
  assert.equal(await readRegularFile(join(dir, 'nope'), 1024), { ok: false, why: 'missing' });
  assert.equal(await readRegularFile(join(dir, 'nope', 'deeper'), 1024), { ok: false, why: 'missing' });
});

test('a FIFO is refused at once instead of blocking the reader', async () => {
  execFileSync('mkfifo', [join(dir, 'fifo.yaml')]);
  assert.equal(await readRegularFile(join(dir, 'fifo.yaml'), 1024), { ok: false, why: 'not-regular' });
});

test('a file over the cap is refused by its size, before it is read', async () => {
  writeFileSync(join(dir, 'big'), 'x'.repeat(2048));
  assert.equal(await readRegularFile(join(dir, 'big'), 1024), { ok: false, why: 'too-large', size: 2048 });
  assert.equal(await readRegularFile(join(dir, 'big'), 2048), { ok: true, text: 'x'.repeat(2048) });
});

test('sizes read as people read them', () => {
  assert.is(formatBytes(4 * 1024 * 1024), '4 MiB');
  assert.is(formatBytes(52_428_801), '52,428,801 bytes');
});

test.after(() => rmSync(dir, { recursive: true, force: true }));

test.run();
