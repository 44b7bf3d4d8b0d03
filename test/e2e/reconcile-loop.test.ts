import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { git } from '../../src/demo/git-remote.js';
import { modelsYaml } from '../fixtures/config-yaml.js';
import { startE2E, type E2E } from './fleet-world.js';

let e: E2E;

test.before(async () => {
  e = await startE2E({ modelsYaml: modelsYaml([{ name: 'small', replicas: 1 }]) });
});
test.after(async () => {
  await e.close();
});

test('the first tick starts the desired replica and commits the generated files as llmgw', async () => {
  const r = await e.tick();
  assert.is(r.configInvalid, false);
  assert.equal(
    r.plan!.actions.map((a) => `${a.op} ${a.replica}`),
    ['start small-0'],
  );
  assert.equal([r.outcome!.started, r.outcome!.failed], [1, 0]);
  assert.ok(r.commit);
  assert.is(r.pushed, true);
  assert.is(await e.remoteHead(), r.commit);
  assert.is(await git(e.world.remote, ['log', '-1', '--format=%an|%s', 'main']), 'llmgw|llmgw: started small (demo)');
  const files = (await git(e.world.remote, ['show', '--name-only', '--format=', 'main'])).split('\n').sort();
  assert.equal(files, ['.llmgw/observed.json', '.llmgw/state.json', 'STATUS.md']);
  assert.equal(
    (await e.replicasOnFleet()).map((x) => x.id),
    ['small-0'],
  );
});

test('a models.yaml change pushed to the remote is applied at the next tick and STATUS.md committed', async () => {
  await e.waitRunning(1);
  await e.tick(); // sees small-0 running
  await e.push(
    {
      'models.yaml': modelsYaml([
        { name: 'small', replicas: 1 },
        { name: 'extra', replicas: 2 },
      ]),
    },
    'Add extra',
  );
  const r = await e.tick();
  assert.equal(r.plan!.actions.map((a) => `${a.op} ${a.replica}`).sort(), ['start extra-0', 'start extra-1']);
  assert.is(r.outcome!.started, 2);
  assert.ok(r.commit);
  assert.is(await e.remoteHead(), r.commit);
  const onFleet = (await e.replicasOnFleet()).map((x) => x.id);
  assert.equal(onFleet, ['extra-0', 'extra-1', 'small-0']);
  const status = await git(e.world.remote, ['show', 'main:STATUS.md']);
  assert.match(status, /extra/);
});

test('a steady fleet makes no commit over three ticks', async () => {
  await e.waitRunning(3);
  await e.tick(); // records them running
  const head = await e.remoteHead();
  for (let i = 0; i < 3; i++) {
    const r = await e.tick();
    assert.equal(r.plan!.actions, []);
    assert.is(r.commit, null);
  }
  assert.is(await e.remoteHead(), head);
  assert.is(await git(e.workdir, ['status', '--porcelain']), '');
});

test.run();
