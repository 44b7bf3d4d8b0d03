import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openConfigRepo } from '../../src/git/config-repo.js';
import { GitError } from '../../src/errors.js';
import { sandbox, type Sandbox } from './fixtures.js';

let sb: Sandbox;
test.before.each(() => {
  sb = sandbox();
});
test.after.each(() => sb.cleanup());

test('sync fast-forwards to a change pushed by someone else and keeps an uncommitted edit', async () => {
  const dir = sb.clone('work');
  const repo = await openConfigRepo({ dir, env: sb.env });
  const other = sb.clone('other');
  sb.write(other, 'models.yaml', 'apiVersion: llmgw/v1\nkind: Models\nmodels: [] # v2\n');
  sb.git(other, 'commit', '--quiet', '-am', 'v2');
  sb.git(other, 'push', '--quiet');
  writeFileSync(join(dir, 'cluster.yaml'), 'local edit\n');
  await repo.sync();
  assert.is(await repo.head(), sb.git(other, 'rev-parse', 'HEAD'));
  assert.match(readFileSync(join(dir, 'models.yaml'), 'utf8'), /# v2/);
  assert.is(readFileSync(join(dir, 'cluster.yaml'), 'utf8'), 'local edit\n');
});

test('a generated file left uncommitted by a dead tick yields to the incoming one instead of holding conflict markers', async () => {
  const other = sb.clone('other');
  sb.write(other, '.llmgw/state.json', '{"v":1}\n');
  sb.git(other, 'add', '.');
  sb.git(other, 'commit', '--quiet', '-m', 'state');
  sb.git(other, 'push', '--quiet');
  const dir = sb.clone('work');
  const repo = await openConfigRepo({ dir, env: sb.env });
  sb.write(dir, '.llmgw/state.json', '{"v":"dead tick"}\n');
  writeFileSync(join(dir, 'cluster.yaml'), 'a person is editing\n');
  sb.write(other, '.llmgw/state.json', '{"v":2}\n');
  sb.git(other, 'commit', '--quiet', '-am', 'state 2');
  sb.git(other, 'push', '--quiet');
  await repo.sync();
  assert.is(readFileSync(join(dir, '.llmgw/state.json'), 'utf8'), '{"v":2}\n');
  assert.is(readFileSync(join(dir, 'cluster.yaml'), 'utf8'), 'a person is editing\n');
  assert.equal(await repo.dirtyConfig(), ['cluster.yaml']);
  assert.not.match(sb.git(dir, 'status', '--porcelain'), 'state.json');
});

test('sync rebases an unpushed llmgw commit onto the remote', async () => {
  const dir = sb.clone('work');
  const repo = await openConfigRepo({ dir, env: sb.env });
  sb.write(dir, 'STATUS.md', 'mine\n');
  await repo.commit(['STATUS.md'], 'llmgw: status');
  const other = sb.clone('other');
  sb.write(other, 'models.yaml', 'v2\n');
  sb.git(other, 'commit', '--quiet', '-am', 'v2');
  sb.git(other, 'push', '--quiet');
  await repo.sync();
  assert.is(sb.git(dir, 'rev-parse', 'HEAD~1'), sb.git(other, 'rev-parse', 'HEAD'));
  assert.is(sb.git(dir, 'log', '-1', '--format=%s'), 'llmgw: status');
});

test('a push race with another writer is fetched, rebased and pushed: nothing lost, no force', async () => {
  const dir = sb.clone('work');
  const repo = await openConfigRepo({ dir, env: sb.env });
  sb.write(dir, 'STATUS.md', 'fleet\n');
  await repo.commit(['STATUS.md'], 'llmgw: status');
  const other = sb.clone('other');
  sb.write(other, 'models.yaml', 'v2\n');
  sb.git(other, 'commit', '--quiet', '-am', 'theirs');
  sb.git(other, 'push', '--quiet');
  const theirs = sb.git(other, 'rev-parse', 'HEAD');
  await repo.push();
  const log = sb.git(sb.remote, 'log', '--format=%s', 'main');
  assert.is(log, 'llmgw: status\ntheirs\nseed');
  // Their commit is an ancestor of the new tip: the branch moved forward only.
  sb.git(sb.remote, 'merge-base', '--is-ancestor', theirs, 'main');
  assert.is(sb.git(sb.remote, 'show', 'main:STATUS.md'), 'fleet');
  assert.is(await repo.head(), sb.git(sb.remote, 'rev-parse', 'main'));
});

test('a remote that keeps moving exhausts the bounded attempts: one GitError line, the commit rebased and kept', async () => {
  const dir = sb.clone('work');
  const repo = await openConfigRepo({ dir, env: sb.env, pushAttempts: 1 });
  sb.write(dir, 'STATUS.md', 'fleet\n');
  await repo.commit(['STATUS.md'], 'llmgw: status');
  const other = sb.clone('other');
  sb.write(other, 'models.yaml', 'v2\n');
  sb.git(other, 'commit', '--quiet', '-am', 'theirs');
  sb.git(other, 'push', '--quiet');
  const err = await repo.push().then(() => null, (e: unknown) => e);
  assert.instance(err, GitError);
  assert.match((err as Error).message, /^git push to origin main was rejected 1 time: .*(rejected|fetch first)/);
  assert.is(sb.git(dir, 'log', '--format=%s', '-2'), 'llmgw: status\ntheirs', 'rebased, ready for the next tick');
  await openConfigRepo({ dir, env: sb.env }).then((r) => r.push());
  assert.is(sb.git(sb.remote, 'log', '-1', '--format=%s', 'main'), 'llmgw: status');
});

test('a push that cannot be rebased fails with one line and keeps the local commit', async () => {
  const other = sb.clone('other');
  sb.write(other, 'STATUS.md', 'old\n');
  sb.git(other, 'add', 'STATUS.md');
  sb.git(other, 'commit', '--quiet', '-m', 'status');
  sb.git(other, 'push', '--quiet');
  const dir = sb.clone('work');
  const repo = await openConfigRepo({ dir, env: sb.env });
  sb.write(dir, 'STATUS.md', 'fleet\n');
  const mine = await repo.commit(['STATUS.md'], 'llmgw: status');
  // They delete the file we modified: a modify/delete clash no strategy option settles.
  sb.git(other, 'rm', '--quiet', 'STATUS.md');
  sb.git(other, 'commit', '--quiet', '-m', 'gone');
  sb.git(other, 'push', '--quiet');
  const err = await repo.push().then(() => null, (e: unknown) => e);
  assert.instance(err, GitError);
  assert.match((err as Error).message, /^cannot rebase llmgw's commit onto origin\/main \(kept locally\): /);
  assert.not.match((err as Error).message, /\n/);
  assert.is(await repo.head(), mine);
  assert.is(sb.git(dir, 'status', '--porcelain'), '', 'the aborted rebase leaves a clean checkout');
  assert.is(sb.git(sb.remote, 'log', '-1', '--format=%s', 'main'), 'gone');
});

test('a push refused for another reason is one GitError line, not a retry loop', async () => {
  const dir = sb.clone('work');
  const repo = await openConfigRepo({ dir, env: sb.env });
  sb.write(sb.remote, 'hooks/pre-receive', '#!/bin/sh\necho "no pushes today" >&2\nexit 1\n');
  sb.git(sb.remote, 'config', 'core.hooksPath', join(sb.remote, 'hooks'));
  chmodSync(join(sb.remote, 'hooks/pre-receive'), 0o755);
  sb.write(dir, 'STATUS.md', 'fleet\n');
  await repo.commit(['STATUS.md'], 'llmgw: status');
  try {
    await repo.push();
    assert.unreachable('push should fail');
  } catch (err) {
    assert.instance(err, GitError);
    assert.match((err as Error).message, /^git push to origin main failed: /);
  }
});

test.run();
