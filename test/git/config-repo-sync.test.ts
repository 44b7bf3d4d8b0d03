import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openConfigRepo } from '../../src/git/config-repo.js';
import { GitError } from '../../src/errors.js';
import { writeAll } from '../../src/store/write.js';
import { emptyState } from '../../src/types/state.js';
import { sandbox, type Sandbox } from './fixtures.js';

let sb: Sandbox;
test.before.each(() => {
  sb = sandbox();
});
test.after.each(() => sb.cleanup());

/** Another writer commits `text` to `file` in its checkout and pushes it (a merged PR); its new HEAD. */
function theyPush(other: string, file: string, text: string, message: string): string {
  sb.write(other, file, text);
  sb.git(other, 'add', file);
  sb.git(other, 'commit', '--quiet', '-m', message);
  sb.git(other, 'push', '--quiet');
  return sb.git(other, 'rev-parse', 'HEAD');
}

/** The reconciler's checkout with one unpushed llmgw commit of STATUS.md. */
async function workWithCommit(pushAttempts?: number) {
  const dir = sb.clone('work');
  const repo = await openConfigRepo({ dir, env: sb.env, pushAttempts });
  sb.write(dir, 'STATUS.md', 'fleet\n');
  const mine = await repo.commit(['STATUS.md'], 'llmgw: status');
  return { dir, repo, mine };
}

test('sync fast-forwards to a change pushed by someone else and keeps an uncommitted edit', async () => {
  const dir = sb.clone('work');
  const repo = await openConfigRepo({ dir, env: sb.env });
  const other = sb.clone('other');
  theyPush(other, 'models.yaml', 'apiVersion: llmgw/v1\nkind: Models\nmodels: [] # v2\n', 'v2');
  writeFileSync(join(dir, 'cluster.yaml'), 'local edit\n');
  await repo.sync();
  assert.is(await repo.head(), sb.git(other, 'rev-parse', 'HEAD'));
  assert.match(readFileSync(join(dir, 'models.yaml'), 'utf8'), /# v2/);
  assert.is(readFileSync(join(dir, 'cluster.yaml'), 'utf8'), 'local edit\n');
});

test('a generated file left uncommitted by a dead tick yields to the incoming one instead of holding conflict markers', async () => {
  const other = sb.clone('other');
  theyPush(other, '.llmgw/state.json', '{"v":1}\n', 'state');
  const dir = sb.clone('work');
  const repo = await openConfigRepo({ dir, env: sb.env });
  sb.write(dir, '.llmgw/state.json', '{"v":"dead tick"}\n');
  writeFileSync(join(dir, 'cluster.yaml'), 'a person is editing\n');
  theyPush(other, '.llmgw/state.json', '{"v":2}\n', 'state 2');
  await repo.sync();
  assert.is(readFileSync(join(dir, '.llmgw/state.json'), 'utf8'), '{"v":2}\n');
  assert.is(readFileSync(join(dir, 'cluster.yaml'), 'utf8'), 'a person is editing\n');
  assert.equal(await repo.dirtyConfig(), ['cluster.yaml']);
  assert.not.match(sb.git(dir, 'status', '--porcelain'), 'state.json');
});

test('sync rebases an unpushed llmgw commit onto the remote', async () => {
  const { dir, repo } = await workWithCommit();
  const other = sb.clone('other');
  theyPush(other, 'models.yaml', 'v2\n', 'v2');
  await repo.sync();
  assert.is(sb.git(dir, 'rev-parse', 'HEAD~1'), sb.git(other, 'rev-parse', 'HEAD'));
  assert.is(sb.git(dir, 'log', '-1', '--format=%s'), 'llmgw: status');
});

test('a push race with another writer is fetched, rebased and pushed: nothing lost, no force', async () => {
  const { repo } = await workWithCommit();
  const theirs = theyPush(sb.clone('other'), 'models.yaml', 'v2\n', 'theirs');
  await repo.push();
  const log = sb.git(sb.remote, 'log', '--format=%s', 'main');
  assert.is(log, 'llmgw: status\ntheirs\nseed');
  // Their commit is an ancestor of the new tip: the branch moved forward only.
  sb.git(sb.remote, 'merge-base', '--is-ancestor', theirs, 'main');
  assert.is(sb.git(sb.remote, 'show', 'main:STATUS.md'), 'fleet');
  assert.is(await repo.head(), sb.git(sb.remote, 'rev-parse', 'main'));
});

test('a push race after a tick replaced a linked .llmgw/ and STATUS.md is rebased like any other of its commits', async () => {
  const seed = sb.clone('seed-links');
  symlinkSync('/etc', join(seed, '.llmgw'));
  symlinkSync('/etc/hostname', join(seed, 'STATUS.md'));
  sb.git(seed, 'add', '-A');
  sb.git(seed, 'commit', '--quiet', '-m', 'links');
  sb.git(seed, 'push', '--quiet');
  const dir = sb.clone('work');
  const repo = await openConfigRepo({ dir, env: sb.env });
  await writeAll(dir, { status: '# Fleet\n', state: emptyState(), snapshot: null });
  assert.ok(await repo.commit(['STATUS.md', '.llmgw/observed.json', '.llmgw/state.json'], 'llmgw: replaced links'));
  theyPush(sb.clone('other'), 'models.yaml', 'v2\n', 'theirs');
  await repo.push();
  assert.is(sb.git(sb.remote, 'log', '--format=%s', '-2', 'main'), 'llmgw: replaced links\ntheirs');
  assert.equal(
    sb
      .git(sb.remote, 'ls-tree', 'main', '--', 'STATUS.md', '.llmgw')
      .split('\n')
      .map((l) => l.split(' ')[0]),
    ['040000', '100644'],
  );
});

test('a remote that keeps moving exhausts the bounded attempts: one GitError line, the commit rebased and kept', async () => {
  const { dir, repo } = await workWithCommit(1);
  theyPush(sb.clone('other'), 'models.yaml', 'v2\n', 'theirs');
  const err = await repo.push().then(
    () => null,
    (e: unknown) => e,
  );
  assert.instance(err, GitError);
  assert.match((err as Error).message, /^git push to origin main was rejected 1 time: .*(rejected|fetch first)/);
  assert.is(sb.git(dir, 'log', '--format=%s', '-2'), 'llmgw: status\ntheirs', 'rebased, ready for the next tick');
  await openConfigRepo({ dir, env: sb.env }).then((r) => r.push());
  assert.is(sb.git(sb.remote, 'log', '-1', '--format=%s', 'main'), 'llmgw: status');
});

test('a push that cannot be rebased fails with one line and keeps the local commit', async () => {
  const other = sb.clone('other');
  theyPush(other, 'STATUS.md', 'old\n', 'status');
  const { dir, repo, mine } = await workWithCommit();
  // They delete the file we modified: a modify/delete clash no strategy option settles.
  sb.git(other, 'rm', '--quiet', 'STATUS.md');
  sb.git(other, 'commit', '--quiet', '-m', 'gone');
  sb.git(other, 'push', '--quiet');
  const err = await repo.push().then(
    () => null,
    (e: unknown) => e,
  );
  assert.instance(err, GitError);
  assert.match((err as Error).message, /^cannot rebase llmgw's commit onto origin\/main \(kept locally\): /);
  assert.not.match((err as Error).message, /\n/);
  assert.is(await repo.head(), mine);
  assert.is(sb.git(dir, 'status', '--porcelain'), '', 'the aborted rebase leaves a clean checkout');
  assert.is(sb.git(sb.remote, 'log', '-1', '--format=%s', 'main'), 'gone');
});

test('a push refused for another reason is one GitError line, not a retry loop', async () => {
  const { repo } = await workWithCommit();
  sb.write(sb.remote, 'hooks/pre-receive', '#!/bin/sh\necho "no pushes today" >&2\nexit 1\n');
  sb.git(sb.remote, 'config', 'core.hooksPath', join(sb.remote, 'hooks'));
  chmodSync(join(sb.remote, 'hooks/pre-receive'), 0o755);
  try {
    await repo.push();
    assert.unreachable('push should fail');
  } catch (err) {
    assert.instance(err, GitError);
    assert.match((err as Error).message, /^git push to origin main failed: /);
  }
});

test.run();
