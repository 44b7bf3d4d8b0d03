import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { git } from '../../src/demo/git-remote.js';
import { modelsYaml } from '../fixtures/config-yaml.js';
import { startE2E, type E2E } from './fleet-world.js';

let e: E2E;

test.before(async () => {
  e = await startE2E({ modelsYaml: modelsYaml([]) });
});
test.after(async () => {
  await e.close();
});

test('a push race with another writer loses nothing: the tick rebases its commit and pushes again', async () => {
  let raced = '';
  // The other writer lands between this tick's pull and its push.
  const racingRepo = Object.create(e.repo) as typeof e.repo;
  racingRepo.commit = async (paths, message) => {
    raced = await e.push({ 'README.md': 'the fleet config\n' }, 'A person edits the README');
    return e.repo.commit(paths, message);
  };
  const r = await e.tick({ repo: racingRepo });
  assert.ok(r.commit);
  assert.is(r.pushed, true);
  assert.is(r.pushError, null);
  const log = (await git(e.world.remote, ['log', '--format=%an|%s', 'main'])).split('\n');
  assert.equal(log.slice(0, 2), ['llmgw|llmgw: status: no replicas (demo)', 'llmgw demo|A person edits the README']);
  assert.is(await git(e.world.remote, ['merge-base', '--is-ancestor', raced, 'main']).then(() => true), true);
  assert.is(await git(e.world.remote, ['show', 'main:README.md']), 'the fleet config');
  assert.match(await git(e.world.remote, ['show', 'main:STATUS.md']), /demo/);
});

test.run();
