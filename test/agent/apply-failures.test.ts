import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runAgent } from '../../src/agent/main.js';
import { isAlive } from '../../src/agent/process.js';
import { readRecord } from '../../src/agent/replica-store.js';
import { stubEngineCommand } from '../../src/sim/stub-engine.js';
import { fileNode, freePort, stubStart, waitFor } from './helpers.js';

const node = fileNode(test);
const stateOf = node.stateOf;

test('a start that cannot run (command not found) is ok:false with the reason, and the other ops still happen', async () => {
  const port = await freePort();
  const reply = await node.apply(
    [{ ...stubStart('bad-0', await freePort()), command: ['no-such-engine-binary', 'serve'] }, stubStart('good-0', port)],
    ['not-there-0'],
  );
  assert.equal(reply.results, [
    { replica: 'bad-0', op: 'start', ok: false, error: 'cannot start no-such-engine-binary: command not found' },
    { replica: 'good-0', op: 'start', ok: true },
    { replica: 'not-there-0', op: 'stop', ok: true },
  ]);
  assert.equal(
    (await node.report()).replicas.map((r) => r.id),
    ['good-0'],
  );
  await node.apply([], ['good-0']);
});

test('a replica whose process dies is failed, and stays in the report until stopped', async () => {
  await node.apply([stubStart('dies-0', await freePort())]);
  const rec = (await readRecord(node.env, 'dies-0'))!;
  process.kill(rec.pid, 'SIGKILL');
  assert.ok(await waitFor(async () => (await stateOf('dies-0')) === 'failed'));
  const r = await node.report();
  assert.is(r.replicas[0]?.state, 'failed');
  assert.ok(r.warnings.includes(`replica dies-0 failed: its process (pid ${rec.pid}) exited; log: ${rec.log}`));
  assert.is(await stateOf('dies-0'), 'failed');
  assert.equal((await node.apply([], ['dies-0'])).results, [{ replica: 'dies-0', op: 'stop', ok: true }]);
  assert.equal((await node.report()).replicas, []);
});

test('a replica not healthy by startTimeoutSeconds is failed', async () => {
  await node.apply([stubStart('slow-0', await freePort(), { readyAfter: 60, startTimeoutSeconds: 2 })]);
  assert.is(await stateOf('slow-0'), 'starting');
  await new Promise((r) => setTimeout(r, 2200));
  const r = await node.report();
  assert.is(r.replicas[0]?.state, 'failed');
  assert.ok(r.warnings.includes('replica slow-0 failed: not healthy within startTimeoutSeconds (2 s)'));
  await node.apply([], ['slow-0']);
});

test('stop terminates the whole process group, workers included', async () => {
  const port = await freePort();
  const pidFile = join(node.dir, 'worker.pid');
  // The engine forks a worker (as vLLM does), then becomes the stub engine.
  const command = ['/bin/sh', '-c', 'sleep 300 & echo $! > "$0"; exec "$@"', pidFile, ...stubEngineCommand(), '--port', String(port)];
  assert.equal((await node.apply([stubStart('group-0', port, { command })])).results, [{ replica: 'group-0', op: 'start', ok: true }]);
  assert.ok(await waitFor(async () => (await readFile(pidFile, 'utf8').catch(() => '')).trim() !== ''));
  const worker = Number((await readFile(pidFile, 'utf8')).trim());
  const leader = (await readRecord(node.env, 'group-0'))!.pid;
  assert.is(await isAlive(worker, null), true);
  await node.apply([], ['group-0']);
  assert.is(await isAlive(leader, null), false);
  assert.ok(await waitFor(async () => !(await isAlive(worker, null)), 3000), 'the worker is gone too');
});

test('a replica that ignores SIGTERM is killed after the stop timeout', async () => {
  const ready = join(node.dir, 'stubborn.ready');
  const command = ['/bin/sh', '-c', 'trap "" TERM; sleep 300 & touch "$0"; wait', ready];
  await node.apply([stubStart('stubborn-0', await freePort(), { command })]);
  assert.ok(
    await waitFor(
      async () =>
        await readFile(ready).then(
          () => true,
          () => false,
        ),
    ),
    'SIGTERM is ignored from now on',
  );
  const pid = (await readRecord(node.env, 'stubborn-0'))!.pid;
  const started = Date.now();
  const out = await runAgent('apply', JSON.stringify({ version: 1, node: 'n1', start: [], stop: ['stubborn-0'] }), {
    ...node.env,
    LLMGW_AGENT_STOP_TIMEOUT: '0.5',
  });
  assert.equal(JSON.parse(out.stdout).results, [{ replica: 'stubborn-0', op: 'stop', ok: true }]);
  assert.ok(Date.now() - started >= 500, 'waited the grace period first');
  assert.is(await isAlive(pid, null), false);
});

test.run();
