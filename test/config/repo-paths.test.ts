// insideRepo (docs/security.md): ssh.knownHosts and ssh.identityFile must lie
// outside the config repo, judged lexically and by real paths, for files and
// directories that may not exist yet.

import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { insideRepo } from '../../src/config/repo-paths.js';

let work = '';
test.before.each(() => {
  work = mkdtempSync(join(tmpdir(), 'llmgw-repo-paths-'));
});
test.after.each(() => rmSync(work, { recursive: true, force: true }));

test('the repo itself and what lies below it are inside; its parent and a sibling are not', () => {
  const repo = join(work, 'repo');
  mkdirSync(repo);
  assert.equal(
    [repo, join(repo, 'keys', 'id'), join(repo, '..key'), dirname(repo), join(work, 'repo-2', 'id'), '/etc/ssh/known_hosts'].map((p) =>
      insideRepo(p, repo, realpathSync.native),
    ),
    [true, true, true, false, false, false],
  );
});

test('a path through a linked directory is inside when its real path is, even if neither it nor the repo exists yet', () => {
  mkdirSync(join(work, 'real'));
  symlinkSync(join(work, 'real'), join(work, 'link'));
  const repo = join(work, 'real', 'new-repo');
  assert.is(insideRepo(join(work, 'link', 'new-repo', 'id_ed25519'), repo, realpathSync.native), true);
  assert.is(insideRepo(join(work, 'link', 'new-repo', '.ssh', 'known', 'hosts'), repo, realpathSync.native), true);
  assert.is(insideRepo(join(work, 'link', 'other-repo', 'id_ed25519'), repo, realpathSync.native), false);
  assert.is(insideRepo(join(work, 'link', 'new-repo', 'id'), join(work, 'real', 'a', 'b', 'new-repo'), realpathSync.native), false);
});

test('the copies llmgw keeps of its workdir count as the repo: the broken checkout kept beside a fresh clone, a clone under way', () => {
  const repo = join(work, 'repo');
  mkdirSync(repo);
  assert.equal(
    [
      join(work, 'repo.llmgw-broken', 'known_hosts'),
      join(work, 'repo.llmgw-broken'),
      join(work, 'repo.llmgw-clone-4242', 'keys', 'id'),
      join(work, 'repo.llmgw-brokenish', 'known_hosts'),
      join(work, 'other.llmgw-broken', 'known_hosts'),
      join(work, 'other.llmgw-clone-1', 'id'),
    ].map((p) => insideRepo(p, repo, realpathSync.native)),
    [true, true, true, false, false, false],
  );
});

test.run();
