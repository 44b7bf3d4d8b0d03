// What `plan --base REF` and the tick read through ConfigRepo: files at a ref,
// what a branch changed since it left a ref, what differs from HEAD, and what
// is not pushed yet: all through the repo's own methods, names with spaces
// included.

import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DataError, GitError } from '../../src/errors.js';
import { openConfigRepo } from '../../src/git/config-repo.js';
import { sandbox, type Sandbox } from './fixtures.js';

let sb: Sandbox;
test.before.each(() => {
  sb = sandbox();
});
test.after.each(() => sb.cleanup());

test('fileAt reads a file as a ref has it, byte for byte, and null where the ref has none', async () => {
  const dir = sb.clone('work');
  sb.write(dir, '.llmgw/observed.json', '{"a": 1}\n\n');
  sb.git(dir, 'add', '.');
  sb.git(dir, 'commit', '--quiet', '-m', 'observed');
  const first = sb.git(dir, 'rev-parse', 'HEAD');
  sb.write(dir, '.llmgw/observed.json', '{"a": 2}\n');
  sb.git(dir, 'commit', '--quiet', '-am', 'again');
  const repo = await openConfigRepo({ dir, env: sb.env });
  assert.is(await repo.fileAt(first, '.llmgw/observed.json'), '{"a": 1}\n\n');
  assert.is(await repo.fileAt('HEAD', '.llmgw/observed.json'), '{"a": 2}\n');
  assert.is(await repo.fileAt('HEAD', 'STATUS.md'), null);
  assert.is(await repo.fileAt('HEAD', '.llmgw'), null, 'a directory is not a file');
});

test('fileAt never reads through a symbolic link: its target text is a DataError, not the file', async () => {
  const dir = sb.clone('work');
  symlinkSync('/etc/passwd', join(dir, 'STATUS.md'));
  sb.git(dir, 'add', '.');
  sb.git(dir, 'commit', '--quiet', '-m', 'link');
  const repo = await openConfigRepo({ dir, env: sb.env });
  const err = await repo.fileAt('HEAD', 'STATUS.md').then(
    () => null,
    (e: unknown) => e,
  );
  assert.instance(err, DataError);
  assert.match((err as Error).message, /^HEAD:STATUS\.md: is a symbolic link/);
});

test('fileAt never reads a file through a linked directory: a .llmgw that is a link at the ref is a DataError naming .llmgw', async () => {
  const dir = sb.clone('work');
  sb.write(sb.root, 'outside/observed.json', '{"version":1,"nodes":[]}\n');
  symlinkSync(join(sb.root, 'outside'), join(dir, '.llmgw'));
  sb.git(dir, 'add', '.');
  sb.git(dir, 'commit', '--quiet', '-m', 'linked dir');
  const repo = await openConfigRepo({ dir, env: sb.env });
  const err = await repo.fileAt('HEAD', '.llmgw/observed.json').then(
    () => null,
    (e: unknown) => e,
  );
  assert.instance(err, DataError);
  assert.match((err as Error).message, /^HEAD:\.llmgw: is a symbolic link/);
});

test('modesAt gives the git mode of each path a ref has, and nothing for one it lacks', async () => {
  const dir = sb.clone('work');
  sb.write(dir, '.llmgw/state.json', '{}\n');
  symlinkSync('/etc/passwd', join(dir, 'STATUS.md'));
  sb.git(dir, 'add', '.');
  sb.git(dir, 'commit', '--quiet', '-m', 'files');
  const repo = await openConfigRepo({ dir, env: sb.env });
  const modes = await repo.modesAt('HEAD', ['STATUS.md', '.llmgw', '.llmgw/state.json', '.llmgw/observed.json', 'models.yaml']);
  assert.equal([...modes].sort(), [
    ['.llmgw', '040000'],
    ['.llmgw/state.json', '100644'],
    ['STATUS.md', '120000'],
    ['models.yaml', '100644'],
  ]);
});

test('resolveCommit names the commit of a ref, and a ref that names none is a GitError naming it', async () => {
  const dir = sb.clone('work');
  const repo = await openConfigRepo({ dir, env: sb.env });
  assert.is(await repo.resolveCommit('origin/main'), sb.git(dir, 'rev-parse', 'origin/main'));
  for (const bad of ['origin/nope', '--output=/tmp/x', '']) {
    const err = await repo.resolveCommit(bad).then(
      () => null,
      (e: unknown) => e,
    );
    assert.instance(err, GitError, bad);
  }
});

test('changedSince counts what the branch changed, not what landed on the base after the branch left it', async () => {
  const base = sb.clone('base');
  const pr = sb.clone('pr');
  sb.git(pr, 'checkout', '--quiet', '-b', 'feature');
  sb.write(pr, 'models.yaml', 'apiVersion: llmgw/v1\nkind: Models\nmodels: [] # pr\n');
  sb.git(pr, 'commit', '--quiet', '-am', 'pr edits config only');
  // Meanwhile the reconciler commits STATUS.md on main.
  sb.write(base, 'STATUS.md', '# fleet\n');
  sb.write(base, '.llmgw/state.json', '{}\n');
  sb.git(base, 'add', '.');
  sb.git(base, 'commit', '--quiet', '-m', 'llmgw: status');
  sb.git(base, 'push', '--quiet', 'origin', 'main');
  sb.git(pr, 'fetch', '--quiet', 'origin');
  const repo = await openConfigRepo({ dir: pr, env: sb.env });
  assert.equal(await repo.changedSince('origin/main', ['STATUS.md', '.llmgw']), []);
  assert.equal(await repo.changedSince('origin/main', ['models.yaml']), ['models.yaml']);
  // The branch edits a generated file: committed or only in the working tree, it counts.
  sb.write(pr, '.llmgw/observed.json', '{}\n');
  sb.git(pr, 'add', '.');
  sb.git(pr, 'commit', '--quiet', '-m', 'pr edits the snapshot');
  sb.write(pr, 'STATUS.md', '# mine\n');
  sb.git(pr, 'add', 'STATUS.md');
  assert.equal(await repo.changedSince('origin/main', ['STATUS.md', '.llmgw']), ['.llmgw/observed.json', 'STATUS.md']);
});

test('changedFromHead and dirtyConfig read git status as parsed: names with spaces are one name, a rename counts for both', async () => {
  const dir = sb.clone('work');
  const repo = await openConfigRepo({ dir, env: sb.env });
  sb.write(dir, 'my models.yaml', 'x\n');
  sb.write(dir, 'cluster.yaml.orig', 'x\n');
  assert.equal(await repo.dirtyConfig(), [], 'files that merely end in or contain a config name are not config');
  sb.write(dir, 'a b/STATUS.md', 'x\n');
  assert.equal(await repo.changedFromHead(['STATUS.md', '.llmgw/state.json']), []);
  sb.write(dir, 'STATUS.md', 'x\n');
  assert.equal(await repo.changedFromHead(['STATUS.md', '.llmgw/state.json']), ['STATUS.md']);
  sb.git(dir, 'mv', 'models.yaml', 'old models.yaml');
  assert.equal(await repo.dirtyConfig(), ['models.yaml']);
});

test('unpushed: false when the remote has every commit, true for a local commit, false without a remote', async () => {
  const dir = sb.clone('work');
  const repo = await openConfigRepo({ dir, remote: sb.remote, branch: 'main', env: sb.env });
  assert.is(await repo.unpushed(), false);
  sb.write(dir, 'STATUS.md', '# fleet\n');
  await repo.commit(['STATUS.md'], 'llmgw: status');
  assert.is(await repo.unpushed(), true);
  await repo.push();
  assert.is(await repo.unpushed(), false);
  assert.is(await (await openConfigRepo({ dir: join(sb.root, 'seed'), env: sb.env })).unpushed(), false);
});

test.run();
