// The remote's history wins (docs/safety.md#history-rewritten-by-a-person): a
// branch force-pushed back to before a bad merge is followed, llmgw's own
// unpushed commits are dropped with a warning naming them, and the removed
// commit never comes back.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openConfigRepo } from '../../src/git/config-repo.js';
import { GitError } from '../../src/errors.js';
import { sandbox, type Sandbox } from './fixtures.js';

let sb: Sandbox;
test.before.each(() => {
  sb = sandbox();
});
test.after.each(() => sb.cleanup());

const contains = (sha: string) => {
  try {
    sb.git(sb.remote, 'merge-base', '--is-ancestor', sha, 'main');
    return true;
  } catch {
    return false;
  }
};

async function setup() {
  const person = sb.clone('person');
  const good = sb.git(person, 'rev-parse', 'HEAD');
  const goodModels = readFileSync(join(person, 'models.yaml'), 'utf8');
  sb.write(person, 'models.yaml', 'apiVersion: llmgw/v1\nkind: Models\nmodels: [] # the bad merge\n');
  sb.git(person, 'commit', '--quiet', '-am', 'bad merge');
  sb.git(person, 'push', '--quiet');
  const bad = sb.git(person, 'rev-parse', 'HEAD');
  const dir = sb.clone('work');
  const repo = await openConfigRepo({ dir, env: sb.env });
  await repo.sync(() => undefined);
  // One tick pushed on top of the bad merge, one not yet pushed.
  sb.write(dir, 'STATUS.md', 'tick 1\n');
  await repo.commit(['STATUS.md'], 'llmgw: tick 1');
  await repo.push();
  sb.write(dir, 'STATUS.md', 'tick 2\n');
  const unpushed = await repo.commit(['STATUS.md'], 'llmgw: tick 2');
  // The person rewrites main back to before the bad merge.
  sb.git(person, 'reset', '--quiet', '--hard', good);
  sb.git(person, 'push', '--quiet', '--force', 'origin', 'main');
  return { dir, repo, person, good, goodModels, bad, unpushed: unpushed ?? '' };
}

test('a force-push back to before a bad merge is followed: llmgw drops its own unpushed commits (named in a warning) and resets to the remote', async () => {
  const { dir, repo, good, goodModels, unpushed } = await setup();
  const lines: string[] = [];
  await repo.sync((l) => lines.push(l));
  assert.is(await repo.head(), good, 'reset to the remote');
  assert.is(readFileSync(join(dir, 'models.yaml'), 'utf8'), goodModels, 'plans from the remote config');
  const warning = lines.find((l) => l.startsWith('warning: origin/main was rewritten'));
  assert.ok(warning, lines.join('\n'));
  assert.ok(warning.includes(`${unpushed.slice(0, 12)} (llmgw: tick 2)`), warning);
});

test('the removed commit never comes back: the next tick commits and pushes on the rewritten history', async () => {
  const { dir, repo, good, bad } = await setup();
  await repo.sync(() => undefined);
  sb.write(dir, 'STATUS.md', 'tick 3\n');
  await repo.commit(['STATUS.md'], 'llmgw: tick 3');
  await repo.push();
  assert.is(contains(bad), false, 'the bad merge is not on main again');
  assert.is(contains(good), true);
  assert.is(sb.git(sb.remote, 'log', '-1', '--format=%s', 'main'), 'llmgw: tick 3');
});

test('a push after the remote was rewritten under it refuses to rebase the dropped commits back on', async () => {
  const { repo, bad } = await setup();
  // No sync first: the tick's push meets the rewritten remote.
  const err = await repo.push().catch((e: unknown) => e);
  assert.instance(err, GitError);
  assert.match((err as GitError).message, /was rewritten/);
  assert.is(contains(bad), false);
});

test.run();
