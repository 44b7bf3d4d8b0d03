import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { git } from '../../src/demo/git-remote.js';
import { modelsYaml, startE2E, type E2E } from './fleet-world.js';

let e: E2E;

test.before(async () => {
  e = await startE2E({ modelsYaml: modelsYaml([{ name: 'small', gpus: 8, replicas: 1 }]) });
});
test.after(async () => {
  await e.close();
});

function runCrashingTick(workdir: string): Promise<NodeJS.Signals | null> {
  const child = spawn(process.execPath, [fileURLToPath(new URL('./crash-child.js', import.meta.url)), workdir], {
    env: { ...process.env, ...e.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  return new Promise((resolve) => child.on('exit', (_code, signal) => {
    if (signal !== 'SIGKILL') process.stderr.write(out);
    resolve(signal);
  }));
}

test('a crash between start and commit is repaired by the next tick: no second start, the commit lands', async () => {
  const seeded = await e.remoteHead();
  assert.is(await runCrashingTick(e.workdir), 'SIGKILL');
  assert.is(await e.remoteHead(), seeded); // nothing committed by the crashed tick
  assert.equal((await e.replicasOnFleet()).map((r) => r.id), ['small-0']);

  const r = await e.tick();
  assert.equal(r.plan!.actions, []); // the started replica is re-observed, not started again
  assert.ok(r.commit);
  assert.is(await e.remoteHead(), r.commit);
  assert.equal((await e.replicasOnFleet()).map((x) => x.id), ['small-0']);
  assert.match(await git(e.world.remote, ['show', 'main:STATUS.md']), /small/);
  assert.is(await git(e.workdir, ['status', '--porcelain']), '');
});

test.run();
