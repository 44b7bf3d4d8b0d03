// dist/llmgw-node.mjs alone in an empty directory, with no node_modules anywhere
// above it, runs the agent and the router as the full package does.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { request } from 'node:http';
import { join } from 'node:path';
import { fakeGpuEnv, writeFakeGpus } from '../../src/sim/fake-nvidia-smi.js';
import type { AgentApplyReply, AgentReport } from '../../src/types/snapshot.js';
import { getValidator } from '../../src/util/schema.js';
import { freePort, stubStart, waitFor } from '../agent/helpers.js';
import { copyBundle, nodeModulesAbove, runBundle, type CopiedBundle } from '../helpers/node-bundle.js';
import { startEngine } from '../router/helpers.js';

let copy: CopiedBundle;
let nodeEnv: Record<string, string>;

test.before(async () => {
  copy = copyBundle();
  // The node's hardware and disks: beside the bundle's directory, not in it.
  const hw = mkdtempSync(join(tmpdir(), 'llmgw-node-hw-'));
  mkdirSync(join(hw, 'models/org/model'), { recursive: true });
  mkdirSync(join(hw, 'models/org/half'), { recursive: true });
  writeFileSync(join(hw, 'models/org/model/model.safetensors'), 'weights');
  await writeFakeGpus(join(hw, 'gpus.csv'), [
    { name: 'NVIDIA H100 80GB HBM3', uuid: 'GPU-b-0' },
    { name: 'NVIDIA H100 80GB HBM3', uuid: 'GPU-b-1', unhealthy: 'retired' },
  ]);
  nodeEnv = {
    ...fakeGpuEnv(join(hw, 'gpus.csv')),
    LLMGW_STATE_DIR: join(hw, 'state'),
    LLMGW_AGENT_SUPERVISOR: 'process',
    LLMGW_AGENT_STOP_TIMEOUT: '2',
    HW: hw,
  };
});

test.after(async () => {
  // Whatever a failed test left running.
  await runBundle(copy, ['agent', 'apply'], { stdin: JSON.stringify({ version: 1, node: 'n1', start: [], stop: ['bundled-0'] }), env: nodeEnv });
  copy.remove();
  rmSync(nodeEnv.HW!, { recursive: true, force: true });
});

test('the bundle sits alone in its directory, with no node_modules in it or above it', () => {
  assert.is(nodeModulesAbove(copy.dir), null);
});

test('agent report from the bundle: the fake nvidia-smi GPUs, their health and the complete weights, valid against the schema', async () => {
  const req = { version: 1, node: 'n1', storage: [{ path: join(nodeEnv.HW!, 'models'), kind: 'local' }], weights: ['org/model', 'org/half', 'org/absent'] };
  const r = await runBundle(copy, ['agent', 'report'], { stdin: JSON.stringify(req), env: nodeEnv });
  assert.is(r.stderr, '');
  assert.is(r.code, 0);
  const report = JSON.parse(r.stdout) as AgentReport;
  assert.equal(getValidator('agent-report')(report), { ok: true });
  assert.equal(
    report.gpus.map((g) => [g.index, g.uuid, g.healthy]),
    [
      [0, 'GPU-b-0', true],
      [1, 'GPU-b-1', false],
    ],
  );
  assert.equal(report.storage, [
    { path: join(nodeEnv.HW!, 'models'), kind: 'local', weights: ['org/model'], incomplete: ['org/half'], sizes: { 'org/model': { bytes: 7, config: null } } },
  ]);
  assert.equal(report.replicas, []);
});

test('agent apply from the bundle starts an engine that outlives it, report follows it to running, and stop ends it', async () => {
  const port = await freePort();
  const start = stubStart('bundled-0', port);
  const call = async (sub: string, body: unknown) => {
    const r = await runBundle(copy, ['agent', sub], { stdin: JSON.stringify(body), env: nodeEnv });
    assert.is(r.code, 0, r.stderr);
    return JSON.parse(r.stdout) as unknown;
  };
  const started = (await call('apply', { version: 1, node: 'n1', start: [start], stop: [] })) as AgentApplyReply;
  assert.equal(started.results, [{ replica: 'bundled-0', op: 'start', ok: true }]);
  const state = async () =>
    ((await call('report', { version: 1, node: 'n1', storage: [], weights: [] })) as AgentReport).replicas.find((x) => x.id === 'bundled-0')?.state;
  assert.ok(await waitFor(async () => (await state()) === 'running', 15_000), 'the replica becomes running');
  const stopped = (await call('apply', { version: 1, node: 'n1', start: [], stop: ['bundled-0'] })) as AgentApplyReply;
  assert.equal(stopped.results, [{ replica: 'bundled-0', op: 'stop', ok: true }]);
  assert.is(await state(), undefined);
});

test('a bad request to the bundled agent is one line naming the problem, exit 1, no stack', async () => {
  const r = await runBundle(copy, ['agent', 'apply'], { stdin: '{"version":1,"node":"n1","start":[{}],"stop":[]}', env: nodeEnv });
  assert.is(r.code, 1);
  assert.is(r.stdout, '');
  assert.is(r.stderr.split('\n').filter(Boolean).length, 1, r.stderr);
  assert.match(r.stderr, /^llmgw agent: bad apply request: \/start\/0: must have required property/);
});

test('commands other than agent and router are not in the bundle: one line, exit 1', async () => {
  const r = await runBundle(copy, ['plan']);
  assert.is(r.code, 1);
  assert.is(r.stderr, "llmgw: 'plan' is not in llmgw-node.mjs, which has only agent and router (see --help)\n");
});

function post(port: number, path: string, body: unknown): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(body);
    const req = request(
      { host: '127.0.0.1', port, path, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

test('router serve, endpoints and usage from the bundle: a request reaches the replica and its use is reported', async () => {
  const engine = await startEngine('bundled-engine');
  const admin = join(copy.dir, 'router.sock');
  let serve: ChildProcess | null = null;
  try {
    serve = spawn(process.execPath, [copy.file, 'router', 'serve', '--listen', '127.0.0.1:0', '--admin', admin, '--wait-timeout', '1s'], {
      cwd: copy.dir,
      env: { PATH: process.env.PATH! },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let log = '';
    serve.stderr!.on('data', (c) => (log += c));
    assert.ok(await waitFor(async () => /serving on http:\/\/127\.0\.0\.1:\d+/.test(log), 10_000), `router serve did not start: ${log}`);
    const port = Number(/serving on http:\/\/127\.0\.0\.1:(\d+)/.exec(log)![1]);

    const table = { version: 1, models: { 'm-a': [{ replica: 'm-a-0', url: engine.url }], 'm-b': [] } };
    const set = await runBundle(copy, ['router', 'endpoints', '--admin', admin], { stdin: JSON.stringify(table) });
    assert.is(set.code, 0, set.stderr);

    const ok = await post(port, '/v1/chat/completions', { model: 'm-a', messages: [] });
    assert.is(ok.status, 200);
    assert.is((JSON.parse(ok.text) as { engine: string }).engine, 'bundled-engine');
    // A known model with no replica waits for one (here at most --wait-timeout 1s), then is told it is starting.
    const waited = await post(port, '/v1/chat/completions', { model: 'm-b', messages: [] });
    assert.is(waited.status, 503);
    assert.is((JSON.parse(waited.text) as { error: { code: string } }).error.code, 'model_starting');
    assert.is((await post(port, '/v1/chat/completions', { model: 'nope', messages: [] })).status, 404);

    const usage = await runBundle(copy, ['router', 'usage', '--admin', admin]);
    assert.is(usage.code, 0, usage.stderr);
    const body = JSON.parse(usage.stdout) as { version: number; lastUsed: Record<string, string> };
    assert.equal(getValidator('router-usage')(body), { ok: true });
    assert.equal(Object.keys(body.lastUsed), ['m-a-0']);

    serve.kill('SIGTERM');
    const code = await new Promise((r) => serve!.once('exit', r));
    assert.is(code, 0);
  } finally {
    if (serve && serve.exitCode === null) serve.kill('SIGKILL');
    await engine.close();
  }
});

test.run();
