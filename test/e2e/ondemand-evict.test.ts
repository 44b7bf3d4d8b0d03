// Acceptance of docs/config.md#on-demand-models, making room, end to end: the
// simulated fleet (8 nodes of 8 GPUs), the real router, a real git remote. The
// fleet is full — six whole-node replicas of `low` (priority 0) and two of `high`
// (priority 10), all idle — when `asker` (priority 5, {min: 0, max: 1}) gets
// requests. Exactly one idle `low` replica is drained and stopped for it, the
// idle `high` replicas are untouched, the requests are answered, and the commit
// names the eviction. Nothing here measures time: each step waits on the fleet.

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ask, of, settle, startLifecycleWorld, until, type LifecycleWorld } from './lifecycle-world.js';

const run = promisify(execFile);
const entry = (name: string, priority: number, replicas: string) =>
  `  - { name: ${name}, weights: org/${name}, engine: vllm, gpus: 8, priority: ${priority}, replicas: ${replicas}, scaleDownAfter: 1h }\n`;
const HEAD = 'apiVersion: llmgw/v1\nkind: Models\nmodels:\n';
const FIXED = HEAD + entry('low', 0, '6') + entry('high', 10, '2') + entry('asker', 5, '{ min: 0, max: 1 }');
const RANGED = HEAD + entry('low', 0, '{ min: 0, max: 6 }') + entry('high', 10, '{ min: 0, max: 2 }') + entry('asker', 5, '{ min: 0, max: 1 }');

let w: LifecycleWorld;

test.before(async () => {
  // idle.after short: a replica unused for 2s is idle (its own scaleDownAfter, 1h, keeps it from scaling itself down).
  w = await startLifecycleWorld(FIXED, { cluster: (doc) => void (doc.idle = { after: '2s' }) });
  w.tick = () => w.e.tick();
  await settle(w);
  // The PR that makes every model ranged: each keeps the replicas it runs.
  await w.config({ models: RANGED });
  await w.tick();
});
test.after(async () => {
  await w.close();
});

test('the fleet is full and every model keeps its count when made ranged', async () => {
  assert.is((await of(w, 'low', 'running')).length, 6);
  assert.is((await of(w, 'high', 'running')).length, 2);
  const s = await w.state();
  assert.equal([s.scaling?.['low']?.count, s.scaling?.['high']?.count, s.scaling?.['asker']?.count], [6, 2, 0]);
});

test('demand for asker evicts exactly one idle low replica, never a high one, and is answered', async () => {
  const highBefore = (await of(w, 'high')).map((r) => r.id);
  const lowBefore = (await of(w, 'low')).map((r) => r.id);
  await sleep(2500); // idle.after is 2s: every replica idle by then (the router saw none used)
  const answers = Array.from({ length: 3 }, (_, i) => ask(w.e.world.routerPort, 'asker', `room ${i}`));
  await until('3 requests waiting for asker', async () => ((await w.usage()).waiting?.['asker']?.count ?? 0) === 3);
  const first = await w.tick();
  const evicted = first.plan?.actions.filter((a) => a.op === 'stop') ?? [];
  assert.equal(
    evicted.map((a) => a.reason),
    ['evicted for asker'],
  );
  const victim = evicted[0]!.replica;
  assert.ok(lowBefore.includes(victim), victim);
  const { stdout } = await run('git', ['-C', w.e.workdir, 'log', '--format=%s']);
  assert.match(stdout, new RegExp(`scale asker 0→1 \\(3 waiting at [\\w.-]+\\); evict ${victim} for asker \\(idle \\d+s\\)`));
  let done = false;
  void Promise.all(answers).then(() => (done = true));
  await until(
    'asker placed on the room made for it and answering',
    async () => {
      if (!done) await w.tick();
      return done;
    },
    120_000,
  );
  assert.equal(await Promise.all(answers), [200, 200, 200]);
  assert.equal(
    (await of(w, 'high')).map((r) => r.id),
    highBefore,
  );
  const low = (await of(w, 'low')).map((r) => r.id);
  assert.equal(
    low,
    lowBefore.filter((id) => id !== victim),
  );
  assert.is((await w.state()).scaling?.['low']?.count, 5);
});

test.run();
