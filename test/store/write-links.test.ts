// Writing llmgw's own files never goes through a symbolic link (docs/security.md):
// a STATUS.md or .llmgw/ that is a link (or the wrong kind of thing) is removed
// itself — its target neither read nor written — and the file is written
// afresh, so the tick's commit replaces the link with a regular file.

import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openConfigRepo } from '../../src/git/config-repo.js';
import { clearNonRegular, writeAll, writeGenerated } from '../../src/store/write.js';
import { emptyState } from '../../src/types/state.js';

let work = '';
let dir = '';
let outside = '';
const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: dir, encoding: 'utf8' });
const snapshot = { version: 1 as const, observedAt: '2026-11-29T08:00:00Z', nodes: [], routers: [] };

test.before.each(() => {
  work = mkdtempSync(join(tmpdir(), 'llmgw-generated-links-'));
  dir = join(work, 'repo');
  outside = join(work, 'outside');
  mkdirSync(dir);
  mkdirSync(outside);
  writeFileSync(join(outside, 'secret'), 'PRIVATE');
  git('init', '--quiet');
});
test.after.each(() => rmSync(work, { recursive: true, force: true }));

test('a linked .llmgw/: the link becomes a real directory and nothing lands in its target', async () => {
  symlinkSync(outside, join(dir, '.llmgw'));
  await writeAll(dir, { status: '# Fleet\n', state: emptyState(), snapshot });
  assert.ok(lstatSync(join(dir, '.llmgw')).isDirectory());
  assert.not.ok(lstatSync(join(dir, '.llmgw')).isSymbolicLink());
  assert.equal(readdirSync(outside), ['secret']);
  assert.equal(readdirSync(join(dir, '.llmgw')).sort(), ['observed.json', 'state.json']);
});

test('a linked STATUS.md is replaced, its target keeps its bytes, and writeGenerated counts the repair as a change even when the text is the same', async () => {
  const target = join(outside, 'secret');
  symlinkSync(target, join(dir, 'STATUS.md'));
  const repo = await openConfigRepo({ dir, env: process.env });
  assert.is(await writeGenerated(repo, { status: 'PRIVATE', state: emptyState(), snapshot: null }), true);
  assert.ok(lstatSync(join(dir, 'STATUS.md')).isFile());
  assert.is(readFileSync(target, 'utf8'), 'PRIVATE');
});

test('a directory at STATUS.md and a FIFO at state.json are removed (a link inside the directory is not followed)', async () => {
  mkdirSync(join(dir, 'STATUS.md'));
  symlinkSync(outside, join(dir, 'STATUS.md', 'inner'));
  mkdirSync(join(dir, '.llmgw'));
  execFileSync('mkfifo', [join(dir, '.llmgw', 'state.json')]);
  assert.equal(await clearNonRegular(dir), ['STATUS.md', '.llmgw/state.json']);
  assert.equal(readdirSync(outside), ['secret']);
  assert.equal(await clearNonRegular(dir), [], 'nothing left to repair');
});

test.run();
