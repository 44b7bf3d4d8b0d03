// `agent job` in-process (docs/slurm.md#what-the-agent-does-inside-the-job):
// a stale lease epoch starts nothing; the GPUs of SLURM_JOB_GPUS are recorded,
// reported by `agent report` with the job id, and given to the engine as
// CUDA_VISIBLE_DEVICES; a forwarded SIGTERM reaches the engine; the engine's
// exit code is the job's; argv is data, never a shell line.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EventEmitter } from 'node:events';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { admit } from '../../src/agent/fence.js';
import { runJob } from '../../src/agent/job.js';
import { checkJobRequest, jobGpus } from '../../src/agent/job-request.js';
import { runAgent } from '../../src/agent/main.js';
import { readRecord } from '../../src/agent/replica-store.js';
import type { AgentReport } from '../../src/types/snapshot.js';
import { makeNode, type TestNode } from './helpers.js';
import { fakeStart, seenBy, until, writeFakeEngine } from './job-helpers.js';

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

/** A fresh output directory for one engine run. */
function outDir(): string {
  const d = join(node.dir, `out-${n++}`);
  mkdirSync(d);
  return d;
}

const signals = (): EventEmitter => new EventEmitter();
const jobEnv = (extra: Record<string, string | undefined>) => ({ ...node.env, SLURM_JOB_GPUS: '2,5', SLURM_JOB_ID: '77', ...extra });

test('a lease epoch below the highest seen is refused with one line, and no engine starts', async () => {
  // Its own state directory: the other tests send no lease (epoch 0).
  const env = jobEnv({ LLMGW_STATE_DIR: join(node.dir, 'fenced-state') });
  await admit(env, { epoch: 5, holder: 'newer' }, new Date());
  const out = outDir();
  const req = { ...fakeStart(engine, out, 'exit-0'), lease: { epoch: 3, holder: 'stale' } };
  const r = await runJob(JSON.stringify(req), env, signals());
  assert.is(r.code, 1);
  assert.is(r.stderr, 'fenced: epoch 3 < 5\n');
  assert.is(seenBy(out), undefined);
  assert.is(await readRecord(env, 'm-job-0'), null);
  // The same epoch as the highest is the holder itself: it runs.
  const same = await runJob(JSON.stringify({ ...req, lease: { epoch: 5, holder: 'newer' } }), env, signals());
  assert.is(same.code, 0);
});

test('the GPUs of SLURM_JOB_GPUS are recorded, reported with the job id, and are the engine`s CUDA_VISIBLE_DEVICES; TERM reaches the engine', async () => {
  const out = outDir();
  const sig = signals();
  const req = { ...fakeStart(engine, out, 'term-file'), lease: { epoch: 0, holder: 'h' } };
  const running = runJob(JSON.stringify(req), jobEnv({ CUDA_VISIBLE_DEVICES: undefined }), sig);
  const seen = await until('the engine to start', () => seenBy(out));
  assert.is(seen.cuda, '2,5');
  assert.is(seen.replica, 'm-job-0');
  const rec = await readRecord(node.env, 'm-job-0');
  assert.equal([rec?.gpus, rec?.slurmJob, rec?.supervisor, rec?.env.CUDA_VISIBLE_DEVICES], [[2, 5], '77', 'slurm', '2,5']);
  const out1 = await runAgent('report', JSON.stringify({ version: 1, node: 'n1', storage: [], weights: [] }), node.env);
  const reported = (JSON.parse(out1.stdout) as AgentReport).replicas.find((x) => x.id === 'm-job-0');
  assert.equal([reported?.gpus, reported?.slurmJob, reported?.state], [[2, 5], '77', 'starting']);
  sig.emit('SIGTERM', 'SIGTERM');
  const r = await running;
  assert.ok(existsSync(join(out, 'term')), 'the engine saw SIGTERM');
  assert.equal([r.code, r.signal], [0, undefined]);
});

test('the engine`s exit code is the job`s, and a signal it dies of is named', async () => {
  const r = await runJob(JSON.stringify(fakeStart(engine, outDir(), 'exit-7')), jobEnv({}), signals());
  assert.is(r.code, 7);
  const out = outDir();
  const sig = signals();
  const running = runJob(JSON.stringify(fakeStart(engine, out, 'term-default')), jobEnv({}), sig);
  await until('the engine to start', () => seenBy(out));
  sig.emit('SIGTERM', 'SIGTERM');
  const killed = await running;
  assert.equal([killed.code, killed.signal], [143, 'SIGTERM']);
});

test('argv is data: $(…), backticks and ${…} reach the engine byte for byte and nothing runs', async () => {
  const out = outDir();
  const hostile = [`$(touch ${out}/dollar)`, `\`touch ${out}/backtick\``, '${HOME}', `'; touch ${out}/quote; '`, 'a b\nc'];
  const sig = signals();
  const running = runJob(JSON.stringify(fakeStart(engine, out, 'term-file', hostile)), jobEnv({}), sig);
  const seen = await until('the engine to start', () => seenBy(out));
  assert.equal(seen.argv, hostile);
  sig.emit('SIGTERM', 'SIGTERM');
  await running;
  for (const m of ['dollar', 'backtick', 'quote']) assert.is(existsSync(join(out, m)), false, `${m} ran`);
});

test('GPUs: SLURM_JOB_GPUS first, Slurm`s own CUDA_VISIBLE_DEVICES kept for the engine; none or a non-list is one clear error', () => {
  assert.equal(jobGpus({ SLURM_JOB_GPUS: '4,6' }), { ok: true, value: { gpus: [4, 6], cudaVisibleDevices: '4,6' } });
  // ConstrainDevices: the job sees its GPUs renumbered from 0.
  assert.equal(jobGpus({ SLURM_JOB_GPUS: '4,6', CUDA_VISIBLE_DEVICES: '0,1' }), { ok: true, value: { gpus: [4, 6], cudaVisibleDevices: '0,1' } });
  assert.equal(jobGpus({ CUDA_VISIBLE_DEVICES: '3' }), { ok: true, value: { gpus: [3], cudaVisibleDevices: '3' } });
  const none = jobGpus({});
  assert.ok(!none.ok && none.error.includes('neither SLURM_JOB_GPUS nor CUDA_VISIBLE_DEVICES'), JSON.stringify(none));
  for (const env of [{ CUDA_VISIBLE_DEVICES: 'NoDevFiles' }, { SLURM_JOB_GPUS: '1,1' }, { SLURM_JOB_GPUS: 'GPU-abc', CUDA_VISIBLE_DEVICES: '0' }]) {
    const r = jobGpus(env);
    assert.ok(!r.ok && /is not a comma list|names a GPU twice/.test(r.error), JSON.stringify([env, r]));
  }
});

test('a job with no GPUs, a bad request or incomplete weights starts nothing and says why in one line', async () => {
  const out = outDir();
  const noGpus = await runJob(JSON.stringify(fakeStart(engine, out, 'exit-0')), { ...node.env }, signals());
  assert.equal([noGpus.code, /holds no GPUs/.test(noGpus.stderr)], [1, true]);
  const bad = await runJob(JSON.stringify({ ...fakeStart(engine, out, 'exit-0'), command: [] }), jobEnv({}), signals());
  assert.equal([bad.code, bad.stderr.startsWith('llmgw agent job: bad start request: /command:')], [1, true], bad.stderr);
  const weights = join(out, 'w');
  mkdirSync(weights);
  writeFileSync(join(weights, 'model.safetensors.part'), 'x');
  const half = await runJob(JSON.stringify({ ...fakeStart(engine, out, 'exit-0'), weightsPath: weights }), jobEnv({}), signals());
  assert.equal([half.code, /incomplete: partial download/.test(half.stderr)], [1, true], half.stderr);
  assert.is(seenBy(out), undefined);
});

test('the request: a start entry with the lease beside it, or a whole apply request of one start; anything else is refused', () => {
  const start = fakeStart(engine, '/tmp/x', 'exit-0');
  const single = checkJobRequest(JSON.stringify({ ...start, lease: { epoch: 2, holder: 'h' } }));
  assert.equal(single.ok && [single.value.start.replica, single.value.lease?.epoch], ['m-job-0', 2]);
  const whole = checkJobRequest(JSON.stringify({ version: 1, node: 'n1', start: [start], stop: [] }));
  assert.equal(whole.ok && [whole.value.start.command, whole.value.lease], [start.command, undefined]);
  const two = checkJobRequest(JSON.stringify({ version: 1, node: 'n1', start: [start, start], stop: [] }));
  assert.equal(two, { ok: false, error: 'a job runs exactly one start and no stop' });
  const badId = checkJobRequest(JSON.stringify({ ...start, replica: '../x' }));
  assert.equal(badId, { ok: false, error: '/replica: "../x" is not a replica id' });
  assert.equal(checkJobRequest('x'.repeat(1024 * 1024 + 1)).ok, false);
  assert.equal(checkJobRequest('[1]'), { ok: false, error: 'request is not a JSON object' });
});

test.run();
