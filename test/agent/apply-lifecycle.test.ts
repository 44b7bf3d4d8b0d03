import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { isAlive } from '../../src/agent/process.js';
import { readRecord } from '../../src/agent/replica-store.js';
import { probeHealth } from '../../src/agent/health-probe.js';
import { getValidator } from '../../src/util/schema.js';
import { fileNode, freePort, stubStart, waitFor } from './helpers.js';

const node = fileNode(test);
const stateOf = node.stateOf;

test('a started replica is starting until its health answers 200, then running, with what it was started with', async () => {
  const port = await freePort();
  const reply = await node.apply([stubStart('life-0', port, { readyAfter: 2 })]);
  assert.equal(reply, { version: 1, results: [{ replica: 'life-0', op: 'start', ok: true }] });
  const first = await node.report();
  assert.is(first.replicas.length, 1);
  const r = first.replicas[0]!;
  assert.equal(
    { ...r, startedAt: undefined },
    {
      id: 'life-0',
      model: 'life',
      gpus: [0],
      state: 'starting',
      startedAt: undefined,
      endpoint: `http://127.0.0.1:${port}`,
      port,
      rank: 0,
      spec: 'spec0001',
    },
  );
  assert.ok(Math.abs(Date.parse(r.startedAt!) - Date.now()) < 5000);
  assert.ok(await waitFor(async () => (await stateOf('life-0')) === 'running'), 'becomes running');
  const running = await node.report();
  assert.equal(getValidator('agent-report')(running), { ok: true });
  assert.equal(getValidator('agent-apply-reply')(reply), { ok: true });
});

test('the engine gets the request env (CUDA_VISIBLE_DEVICES) and its output goes to a log in the state dir', async () => {
  const rec = await readRecord(node.env, 'life-0');
  assert.ok(rec);
  // The engine is our own child's process on Linux: its environ is readable, and a test that cannot read it must fail saying why, not pass.
  const environ = await readFile(`/proc/${rec.pid}/environ`, 'utf8').catch((err: unknown) => {
    throw new Error(`cannot read /proc/${rec.pid}/environ to check the engine's environment: ${String(err)}`);
  });
  const vars = environ.split('\0');
  assert.ok(vars.includes('CUDA_VISIBLE_DEVICES=0'), 'the request env reaches the engine');
  assert.ok(vars.includes('LLMGW_REPLICA_ID=life-0'), 'the replica id marks the engine (foreign GPU processes are told apart by it)');
  assert.ok(rec.log.startsWith(node.env.LLMGW_STATE_DIR!));
  const log = await readFile(rec.log, 'utf8');
  assert.match(log, /stub engine serving stub-model on 127\.0\.0\.1:/);
});

test('starting a replica that already runs is ok and leaves the same process', async () => {
  const before = await readRecord(node.env, 'life-0');
  const reply = await node.apply([stubStart('life-0', before!.port)]);
  assert.equal(reply.results, [{ replica: 'life-0', op: 'start', ok: true }]);
  assert.is((await readRecord(node.env, 'life-0'))?.pid, before!.pid);
});

test('starting a running id with another spec is refused rather than silently kept', async () => {
  const before = await readRecord(node.env, 'life-0');
  const reply = await node.apply([{ ...stubStart('life-0', before!.port), spec: 'other' }]);
  assert.equal(reply.results, [
    { replica: 'life-0', op: 'start', ok: false, error: 'replica life-0 already runs with spec spec0001; stop it before starting spec other' },
  ]);
});

test('stop ends the replica and removes it from the report; stopping it again, or one never started, is ok', async () => {
  const pid = (await readRecord(node.env, 'life-0'))!.pid;
  const reply = await node.apply([], ['life-0', 'never-0']);
  assert.equal(reply.results, [
    { replica: 'life-0', op: 'stop', ok: true },
    { replica: 'never-0', op: 'stop', ok: true },
  ]);
  assert.is(await isAlive(pid, null), false);
  assert.equal((await node.report()).replicas, []);
  assert.equal((await node.apply([], ['life-0'])).results, [{ replica: 'life-0', op: 'stop', ok: true }]);
});

test('a replica recorded but dead is started again by start', async () => {
  const port = await freePort();
  await node.apply([stubStart('again-0', port)]);
  const first = (await readRecord(node.env, 'again-0'))!;
  assert.ok(await waitFor(async () => (await stateOf('again-0')) === 'running'));
  process.kill(-first.pid, 'SIGKILL');
  assert.ok(await waitFor(async () => !(await isAlive(first.pid, first.pidStartTime))));
  assert.equal((await node.apply([stubStart('again-0', port)])).results, [{ replica: 'again-0', op: 'start', ok: true }]);
  const second = (await readRecord(node.env, 'again-0'))!;
  assert.is.not(second.pid, first.pid);
  const fs = await import('node:fs/promises');
  assert.match(await fs.readFile(`${second.log}.1`, 'utf8'), /stub engine serving/, "the crashed run's log is kept beside the new one");
  assert.ok(await waitFor(async () => (await stateOf('again-0')) === 'running'), 'the new process is running, not the old failure');
  await node.apply([], ['again-0']);
});

test('the replica outlives the agent process that started it (llmgw agent apply over the CLI)', async () => {
  const port = await freePort();
  const cli = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));
  const child = spawn(process.execPath, [cli, 'agent', 'apply'], { env: node.env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stdin.end(JSON.stringify({ version: 1, node: 'n1', start: [stubStart('detached-0', port)], stop: [] }));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  assert.is(code, 0);
  assert.equal(JSON.parse(out).results, [{ replica: 'detached-0', op: 'start', ok: true }]);
  assert.ok(await waitFor(() => probeHealth(`http://127.0.0.1:${port}/health`)), 'the engine answers after the agent exited');
  assert.is(await stateOf('detached-0'), 'running');
  await node.apply([], ['detached-0']);
});

test.run();
