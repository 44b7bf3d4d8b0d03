// Acceptance of docs/config.md#on-demand-models end to end: the simulated fleet,
// the real router, a real git remote. A model `replicas: {min: 0, max: 2}` with
// no replica is asleep; 20 requests arrive and wait at the router; a tick scales
// it 0→1 and names why in its commit; every request is answered (none lost, none
// 5xx); after scaleDownAfter of silence a tick takes it back to 0, saying why.
// Nothing here measures time: each step waits on what the fleet reports.

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ask, startLifecycleWorld, until, type LifecycleWorld } from './lifecycle-world.js';

const run = promisify(execFile);
const MODELS = `apiVersion: llmgw/v1
kind: Models
models:
  - { name: od, weights: org/od, engine: vllm, gpus: 1, replicas: { min: 0, max: 2 }, scaleDownAfter: 3s }
`;

let w: LifecycleWorld;

test.before(async () => {
  w = await startLifecycleWorld(MODELS);
  // Real-clock ticks: the router's waiting and last-used times are real times.
  w.tick = () => w.e.tick();
});
test.after(async () => {
  await w.close();
});

async function subjects(): Promise<string[]> {
  const { stdout } = await run('git', ['-C', w.e.workdir, 'log', '--format=%s']);
  return stdout.split('\n').filter((l) => l !== '');
}

test('asleep: no replica, not down, STATUS.md says asleep', async () => {
  const r = await w.tick();
  assert.equal(r.report?.replicas.filter((x) => x.model === 'od').length, 0);
  assert.not.ok(r.events.includes('model.down'));
  assert.match(r.status, /0–2 \(now 0, asleep\)/);
});

test('20 requests wait, a tick wakes the model 0→1 naming them, and all 20 are answered', async () => {
  const answers = Array.from({ length: 20 }, (_, i) => ask(w.e.world.routerPort, 'od', `hello ${i}`));
  await until('20 requests waiting at the router', async () => ((await w.usage()).waiting?.['od']?.count ?? 0) === 20);
  const woke = await w.tick();
  assert.match(woke.status, /0–2 \(now 1, waking\)/);
  const log = await subjects();
  assert.ok(
    log.some((s) => /scale od 0→1 \(20 waiting at [\w.-]+\)/.test(s)),
    log.join('\n'),
  );
  let done = false;
  void Promise.all(answers).then(() => (done = true));
  await until(
    'the woken replica to answer every waiting request',
    async () => {
      if (!done) await w.tick();
      return done;
    },
    120_000,
  );
  const statuses = await Promise.all(answers);
  assert.equal(
    statuses,
    Array.from({ length: 20 }, () => 200),
  );
  const state = await w.state();
  assert.is(state.scaling?.['od']?.count, 1);
});

test('after scaleDownAfter of silence the model goes back to 0, and the commit says why', async () => {
  await until(
    'the idle replica to be scaled away',
    async () => {
      await sleep(1000);
      await w.tick();
      const s = await w.state();
      return s.scaling?.['od']?.count === 0;
    },
    120_000,
  );
  const log = await subjects();
  assert.ok(
    log.some((s) => /scale od 1→0 \(od-\d+ idle \d+s\)/.test(s)),
    log.join('\n'),
  );
  const gone = await until(
    'the replica to drain and stop',
    async () => {
      const r = await w.tick();
      return (await w.replicas()).filter((x) => x.model === 'od').length === 0 ? r : null;
    },
    120_000,
  );
  assert.match(gone.status, /asleep/);
  assert.not.ok(gone.events.includes('model.down'));
});

test.run();
