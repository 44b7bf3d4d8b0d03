// `llmgw-node.mjs agent job` as its own process, as a Slurm batch script execs
// it (docs/slurm.md#what-the-agent-does-inside-the-job): a SIGTERM sent to the
// agent's pid (what `scancel --full --signal=TERM` delivers) reaches the
// engine; the engine's exit code is the process's; an engine killed by the
// signal takes the agent with it by the same signal.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeNode, type TestNode } from './helpers.js';
import { fakeStart, seenBy, until, writeFakeEngine } from './job-helpers.js';

// dist/test/agent/ -> dist/llmgw-node.mjs
const BUNDLE = fileURLToPath(new URL('../../llmgw-node.mjs', import.meta.url));

let node: TestNode;
let engine: string;
let n = 0;
test.before(async () => {
  node = await makeNode();
  engine = writeFakeEngine(node.dir);
});
test.after(async () => {
  await node.cleanup();
});

function outDir(): string {
  const d = join(node.dir, `out-${n++}`);
  mkdirSync(d);
  return d;
}

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

function agentJob(request: unknown): { pid: number; ended: Promise<Ended> } {
  const child = spawn(process.execPath, [BUNDLE, 'agent', 'job'], {
    env: { ...node.env, SLURM_JOB_GPUS: '1', SLURM_JOB_ID: '9' },
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += String(c)));
  child.stdin.end(JSON.stringify(request));
  const ended = new Promise<Ended>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal, stderr })));
  return { pid: child.pid as number, ended };
}

test('SIGTERM to the agent reaches the engine, which exits 0: so does the agent', async () => {
  const out = outDir();
  const job = agentJob(fakeStart(engine, out, 'term-file'));
  await until('the engine to start', () => seenBy(out));
  process.kill(job.pid, 'SIGTERM');
  const end = await job.ended;
  assert.ok(existsSync(join(out, 'term')), 'the engine saw SIGTERM');
  assert.equal([end.code, end.signal, end.stderr], [0, null, '']);
});

test('the engine`s exit code is the agent`s', async () => {
  const end = await agentJob(fakeStart(engine, outDir(), 'exit-3')).ended;
  assert.equal([end.code, end.signal], [3, null]);
});

test('an engine that dies of SIGTERM takes the agent with it by SIGTERM', async () => {
  const out = outDir();
  const job = agentJob(fakeStart(engine, out, 'term-default'));
  await until('the engine to start', () => seenBy(out));
  process.kill(job.pid, 'SIGTERM');
  const end = await job.ended;
  assert.equal([end.code, end.signal], [null, 'SIGTERM']);
});

test('a stale epoch: exit 1 and the one line on stderr', async () => {
  const dir = join(node.dir, 'fence-cli');
  const first = spawn(process.execPath, [BUNDLE, 'agent', 'job'], {
    env: { ...node.env, LLMGW_STATE_DIR: dir, SLURM_JOB_GPUS: '0' },
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  first.stdin.end(JSON.stringify({ ...fakeStart(engine, outDir(), 'exit-0'), lease: { epoch: 9, holder: 'a' } }));
  assert.is(await new Promise((r) => first.once('exit', r)), 0);
  const second = spawn(process.execPath, [BUNDLE, 'agent', 'job'], {
    env: { ...node.env, LLMGW_STATE_DIR: dir, SLURM_JOB_GPUS: '0' },
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  let stderr = '';
  second.stderr.on('data', (c: Buffer) => (stderr += String(c)));
  second.stdin.end(JSON.stringify({ ...fakeStart(engine, outDir(), 'exit-0'), lease: { epoch: 8, holder: 'b' } }));
  assert.is(await new Promise((r) => second.once('exit', r)), 1);
  assert.is(stderr, 'fenced: epoch 8 < 9\n');
});

test.run();
