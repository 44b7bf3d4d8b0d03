import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openConfigRepo } from '../../src/git/config-repo.js';
import { GitError } from '../../src/errors.js';
import { sandbox, type Sandbox } from './fixtures.js';

let sb: Sandbox;
test.before.each(() => {
  sb = sandbox();
});
test.after.each(() => sb.cleanup());

test('--remote clones into a missing workdir and tracks the branch', async () => {
  const dir = join(sb.root, 'work');
  const repo = await openConfigRepo({ dir, remote: sb.remote, branch: 'main', env: sb.env });
  assert.ok(repo.hasRemote);
  assert.ok(existsSync(join(dir, 'models.yaml')));
  assert.is(await repo.head(), sb.git(sb.remote, 'rev-parse', 'main'));
  // Reused on the next start rather than cloned again.
  const again = await openConfigRepo({ dir, remote: sb.remote, branch: 'main', env: sb.env });
  assert.is(await again.head(), await repo.head());
});

test('--remote refuses a non-empty workdir that lies inside another checkout', async () => {
  const dir = join(sb.root, 'seed', 'nested');
  sb.write(dir, 'notes.txt', 'x\n');
  const err = await openConfigRepo({ dir, remote: sb.remote, branch: 'main', env: sb.env }).then(
    () => null,
    (e: unknown) => e,
  );
  assert.instance(err, GitError);
  assert.match((err as Error).message, /is not a checkout of its own/);
  assert.is(sb.git(join(sb.root, 'seed'), 'remote'), '', 'the outer checkout got no remote');
});

test('commits only when a generated file changed, as llmgw on a machine with no git identity', async () => {
  const dir = sb.clone('work');
  const repo = await openConfigRepo({ dir, env: sb.env });
  sb.write(dir, 'STATUS.md', '# fleet\n');
  sb.write(dir, '.llmgw/state.json', '{}\n');
  const paths = ['STATUS.md', '.llmgw/observed.json', '.llmgw/state.json'];
  const id = await repo.commit(paths, 'llmgw: status');
  assert.type(id, 'string');
  assert.is(id, await repo.head());
  assert.is(sb.git(dir, 'log', '-1', '--format=%an <%ae>|%cn <%ce>|%s'), 'llmgw <llmgw@localhost>|llmgw <llmgw@localhost>|llmgw: status');
  assert.is(sb.git(dir, 'show', '--format=', '--name-only', 'HEAD'), '.llmgw/state.json\nSTATUS.md');
  assert.is(await repo.commit(paths, 'llmgw: status'), null, 'unchanged files make no commit');
  assert.is(await repo.head(), id);
});

test('a generated file that is deleted or gitignored is still committed as it is', async () => {
  const dir = sb.clone('work');
  const repo = await openConfigRepo({ dir, env: sb.env });
  sb.write(dir, '.gitignore', '.llmgw/\n');
  sb.write(dir, '.llmgw/state.json', '{}\n');
  sb.write(dir, 'STATUS.md', 'x\n');
  await repo.commit(['STATUS.md', '.llmgw/state.json', '.llmgw/observed.json'], 'one');
  assert.is(sb.git(dir, 'show', '--format=', '--name-only', 'HEAD'), '.llmgw/state.json\nSTATUS.md');
  rmSync(join(dir, 'STATUS.md'));
  await repo.commit(['STATUS.md'], 'two');
  assert.is(sb.git(dir, 'show', '--format=', '--name-status', 'HEAD'), 'D\tSTATUS.md');
});

test('commit takes only the given paths, leaving what a person staged', async () => {
  const dir = sb.clone('work');
  const repo = await openConfigRepo({ dir, env: sb.env });
  sb.write(dir, 'models.yaml', 'apiVersion: llmgw/v1\nkind: Models\nmodels: [] # edited\n');
  sb.git(dir, 'add', 'models.yaml');
  sb.write(dir, 'STATUS.md', '# fleet\n');
  await repo.commit(['STATUS.md'], 'llmgw: status');
  assert.is(sb.git(dir, 'show', '--format=', '--name-only', 'HEAD'), 'STATUS.md');
  assert.equal(await repo.dirtyConfig(), ['models.yaml']);
});

test('dirtyConfig names uncommitted, staged and untracked config edits and nothing else', async () => {
  const dir = sb.clone('work');
  const repo = await openConfigRepo({ dir, env: sb.env });
  assert.equal(await repo.dirtyConfig(), []);
  sb.write(dir, 'STATUS.md', 'generated\n');
  assert.equal(await repo.dirtyConfig(), [], 'generated files are not config');
  writeFileSync(join(dir, 'cluster.yaml'), 'edited\n');
  assert.equal(await repo.dirtyConfig(), ['cluster.yaml']);
  sb.git(dir, 'rm', '--quiet', 'models.yaml');
  assert.equal(await repo.dirtyConfig(), ['cluster.yaml', 'models.yaml']);
});

test('a config kept in a subdirectory of its repo: dirty files and commits are named from that directory', async () => {
  const top = join(sb.root, 'mono');
  sb.git(sb.root, 'init', '--quiet', '--initial-branch=main', top);
  sb.write(top, 'fleet/models.yaml', 'models: []\n');
  sb.write(top, 'fleet/cluster.yaml', 'name: t\n');
  sb.git(top, 'add', '.');
  sb.git(top, 'commit', '--quiet', '-m', 'seed');
  const repo = await openConfigRepo({ dir: join(top, 'fleet'), env: sb.env });
  sb.write(top, 'fleet/models.yaml', 'models: [] # edit\n');
  assert.equal(await repo.dirtyConfig(), ['models.yaml']);
  sb.write(top, 'fleet/STATUS.md', 'x\n');
  assert.type(await repo.commit(['STATUS.md', '.llmgw/state.json'], 'llmgw: status'), 'string');
  assert.is(sb.git(top, 'show', '--format=', '--name-only', 'HEAD'), 'fleet/STATUS.md');
});

test('a repo without a remote syncs and pushes as no-ops', async () => {
  const dir = join(sb.root, 'seed');
  const repo = await openConfigRepo({ dir, env: sb.env });
  assert.is(repo.hasRemote, false);
  const head = await repo.head();
  await repo.sync();
  await repo.push();
  assert.is(await repo.head(), head);
});

test('a directory that is not a checkout is a GitError', async () => {
  try {
    await openConfigRepo({ dir: join(sb.root, 'home'), env: sb.env });
    assert.unreachable();
  } catch (err) {
    assert.instance(err, GitError);
    assert.match((err as Error).message, /is not a git checkout/);
  }
});

test('GIT_SSH_COMMAND from the environment reaches git for an SSH remote', async () => {
  // A stand-in ssh: runs the remote command locally and leaves a mark.
  const fakeSsh = join(sb.root, 'fake-ssh');
  const mark = join(sb.root, 'ssh-used');
  writeFileSync(fakeSsh, `#!/bin/sh\nwhile [ $# -gt 1 ]; do shift; done\necho used >> '${mark}'\nexec sh -c "$1"\n`);
  chmodSync(fakeSsh, 0o755);
  const env = { ...sb.env, GIT_SSH_COMMAND: fakeSsh, GIT_DIR: '/nonexistent' };
  const dir = join(sb.root, 'work');
  const repo = await openConfigRepo({ dir, remote: `ssh://fleet-git.invalid${sb.remote}`, branch: 'main', env });
  await repo.sync();
  assert.ok(existsSync(join(dir, 'cluster.yaml')));
  assert.ok(readFileSync(mark, 'utf8').split('\n').length >= 3, 'clone and fetch both went through GIT_SSH_COMMAND');
});

test.run();
