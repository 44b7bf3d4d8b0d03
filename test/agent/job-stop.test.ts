// `agent apply`'s stop of a replica `agent job` runs (docs/slurm.md#what-the-agent-does-inside-the-job):
// its engine is the job agent's child, in the job's process group, not the
// leader of one of its own, so the stop signals the engine itself. Before,
// the stop signalled a group that did not exist, found "nothing running",
// dropped the record and left the engine holding its GPUs.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EventEmitter } from 'node:events';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { apply } from '../../src/agent/apply.js';
import { runJob } from '../../src/agent/job.js';
import { isAlive } from '../../src/agent/process.js';
import { readRecord } from '../../src/agent/replica-store.js';
import { makeNode, type TestNode } from './helpers.js';
import { fakeStart, seenBy, until, writeFakeEngine } from './job-helpers.js';
import type { AgentEnv } from '../../src/agent/env.js';
import type { ReplicaRecord } from '../../src/agent/replica-store.js';

/** The record once the job has written it (generous bound: the CI machine is loaded). */
async function recorded(env: AgentEnv): Promise<ReplicaRecord> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const rec = await readRecord(env, 'm-job-0');
    if (rec !== null) return rec;
    if (Date.now() > deadline) throw new Error('timed out waiting for the job to record its engine');
    await new Promise((r) => setTimeout(r, 50));
  }
}

let node: TestNode;
let engine: string;
test.before(async () => {
  node = await makeNode();
  engine = writeFakeEngine(node.dir);
});
test.after(async () => {
  await node.cleanup();
});

test('agent apply stops a Slurm job`s engine: SIGTERM reaches it, the job`s agent ends with it, the record goes', async () => {
  const out = join(node.dir, 'out-term');
  mkdirSync(out);
  const env = { ...node.env, SLURM_JOB_GPUS: '1', SLURM_JOB_ID: '31' };
  const job = runJob(JSON.stringify(fakeStart(engine, out, 'term-file')), env, new EventEmitter());
  const rec = await recorded(env);
  assert.is(rec.supervisor, 'slurm');
  // The fake engine writes seen.json once its TERM handler is in place.
  await until('the engine to be ready', () => (seenBy(out) !== undefined ? true : undefined));
  const reply = await apply({ version: 1, node: 'n1', start: [], stop: [{ replica: 'm-job-0', graceSeconds: 5 }] }, env);
  assert.equal(reply.results, [{ replica: 'm-job-0', op: 'stop', ok: true }]);
  assert.ok(existsSync(join(out, 'term')), 'the engine got SIGTERM');
  assert.is((await job).code, 0, 'the job ends with the engine`s exit code');
  assert.is(await isAlive(rec.pid, rec.pidStartTime), false);
  assert.is(await readRecord(env, 'm-job-0'), null);
});

test('an engine that ignores SIGTERM gets SIGKILL after the grace; the job`s agent dies of the same signal', async () => {
  const out = join(node.dir, 'out-kill');
  mkdirSync(out);
  const env = { ...node.env, SLURM_JOB_GPUS: '2', SLURM_JOB_ID: '32' };
  // An engine that ignores SIGTERM (the fake engine has no such mode).
  const start = {
    ...fakeStart(engine, out, 'term-file'),
    command: [
      process.execPath,
      '-e',
      `process.on('SIGTERM',()=>{});setInterval(()=>{},1000);require('fs').writeFileSync(${JSON.stringify(join(out, 'ready'))},'')`,
    ],
  };
  const job = runJob(JSON.stringify(start), env, new EventEmitter());
  const rec = await recorded(env);
  await until('the engine to ignore TERM', () => (existsSync(join(out, 'ready')) ? true : undefined));
  const reply = await apply({ version: 1, node: 'n1', start: [], stop: [{ replica: 'm-job-0', graceSeconds: 1 }] }, env);
  assert.equal(reply.results, [{ replica: 'm-job-0', op: 'stop', ok: true }]);
  const end = await job;
  assert.equal([end.signal, end.code], ['SIGKILL', 137]);
  assert.is(await isAlive(rec.pid, rec.pidStartTime), false);
});

test.run();
