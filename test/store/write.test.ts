import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeGenerated } from '../../src/store/write.js';
import { openConfigRepo, type ConfigRepo } from '../../src/git/config-repo.js';
import type { Snapshot } from '../../src/types/snapshot.js';
import { emptyState } from '../../src/types/state.js';

const snap = (observedAt: string): Snapshot => ({ version: 1, observedAt, nodes: [], routers: [] });
const dir = mkdtempSync(join(tmpdir(), 'llmgw-generated-'));
const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: dir, encoding: 'utf8' });
git('init', '--quiet');
let repo: ConfigRepo;

test.before(async () => {
  repo = await openConfigRepo({ dir, env: process.env });
});

test.after(() => rmSync(dir, { recursive: true, force: true }));

test('new STATUS.md or state writes all three generated files', async () => {
  assert.is(await writeGenerated(repo, { status: '# Fleet\n', state: emptyState(), snapshot: snap('2026-11-29T08:00:00Z') }), true);
  assert.is(readFileSync(join(dir, 'STATUS.md'), 'utf8'), '# Fleet\n');
  assert.match(readFileSync(join(dir, '.llmgw/observed.json'), 'utf8'), /08:00:00Z/);
  assert.match(readFileSync(join(dir, '.llmgw/state.json'), 'utf8'), /"version": 1/);
});

test('a tick that crashed before committing leaves files the next tick still reports as changed', async () => {
  assert.is(await writeGenerated(repo, { status: '# Fleet\n', state: emptyState(), snapshot: snap('2026-11-29T08:01:00Z') }), true);
  git('add', '-A');
  git('commit', '--quiet', '-m', 'generated');
});

test('a new observedAt alone writes nothing: the checkout stays clean', async () => {
  assert.is(await writeGenerated(repo, { status: '# Fleet\n', state: emptyState(), snapshot: snap('2026-11-29T09:00:00Z') }), false);
  assert.match(readFileSync(join(dir, '.llmgw/observed.json'), 'utf8'), /08:01:00Z/);
  assert.is(git('status', '--porcelain'), '');
});

test('a changed state alone writes all three', async () => {
  const state = { ...emptyState(), everRunning: ['m'] };
  assert.is(await writeGenerated(repo, { status: '# Fleet\n', state, snapshot: snap('2026-11-29T09:00:00Z') }), true);
  assert.match(readFileSync(join(dir, '.llmgw/observed.json'), 'utf8'), /09:00:00Z/);
});

test.run();
