import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { git } from '../../src/demo/git-remote.js';
import type { Transport } from '../../src/types/transport.js';
import { modelsYaml } from '../fixtures/config-yaml.js';
import { startE2E, type E2E } from './fleet-world.js';

let e: E2E;

test.before(async () => {
  e = await startE2E({ modelsYaml: modelsYaml([{ name: 'small', replicas: 1 }]) });
});
test.after(async () => {
  await e.close();
});

test('an invalid models.yaml on the remote changes nothing on the fleet and STATUS.md shows the invalid block', async () => {
  await e.tick();
  const before = await e.replicasOnFleet();
  assert.equal(
    before.map((r) => r.id),
    ['small-0'],
  );
  await e.push({ 'models.yaml': modelsYaml([{ name: 'small', replicas: 0 }]).replace('gpus: 1', 'gpus: 0') }, 'Break models.yaml');

  const calls: string[] = [];
  const counting: Transport = {
    async run(target, command) {
      calls.push(`${target.name} ${command}`);
      throw new Error('the tick of an invalid config must not reach the fleet');
    },
    async close() {},
  };
  const r = await e.tick({ transport: counting });
  assert.is(r.configInvalid, true);
  assert.is(r.plan, null);
  assert.equal(calls, []);
  assert.equal(await e.replicasOnFleet(), before);
  assert.ok(r.commit);
  // The tick's commit, then the record that the world's webhook took config.invalid (docs/notifications.md).
  const head = await e.remoteHead();
  assert.is(await git(e.world.remote, ['rev-parse', `${head}^`]), r.commit);
  assert.is(await git(e.world.remote, ['log', '-1', '--format=%s', head]), 'llmgw: notified 1 event (demo)');
  assert.equal(r.events, ['config.invalid']);
  const status = await git(e.world.remote, ['show', 'main:STATUS.md']);
  assert.match(status, /models\.yaml:\d+:\d+: models.{0,2}\[0.{0,2}\]\.gpus/);
  assert.match(status, /small/); // the last fleet summary is kept under the block

  const again = await e.tick({ transport: counting });
  assert.is(again.commit, null);
  assert.equal(calls, []);
});

test.run();
