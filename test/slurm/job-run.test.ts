// The real thing end to end (docs/slurm.md#what-the-agent-does-inside-the-job):
// jobs mode's script from src/slurm/job-script.ts goes to the real `sbatch`,
// its `exec … agent job` runs the node bundle inside the job, which records
// the replica with the GPUs Slurm chose and runs a stub engine until
// `scancel --full --signal=TERM` stops it. Checked: the engine answers /health,
// `agent report` lists the replica with exactly the GPU indices squeue says
// the job holds and its job id, and after the TERM the engine is gone and the
// job has ended. Without Slurm installed this skips, saying so.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, mkdirSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runAgent } from '../../src/agent/main.js';
import { readRecord } from '../../src/agent/replica-store.js';
import { jobScript, parseSbatchId, scancelArgv } from '../../src/slurm/job-script.js';
import { parseSqueue } from '../../src/slurm/squeue.js';
import type { AgentReport, StartRequest } from '../../src/types/snapshot.js';
import { tempDir } from '../gather/sim-helpers.js';
import { slurmAvailable, startSlurmCluster, waitFor, type SlurmCluster } from './cluster.js';

// dist/test/slurm/ -> dist/llmgw-node.mjs and dist/src/sim/stub-engine.js
const BUNDLE = fileURLToPath(new URL('../../llmgw-node.mjs', import.meta.url));
const STUB = fileURLToPath(new URL('../../src/sim/stub-engine.js', import.meta.url));

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** GET /health: its status, or 0 when nothing answers. */
function health(port: number): Promise<number> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/health', timeout: 2_000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve(0));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

if (!slurmAvailable()) {
  console.log('SKIP test/slurm/job-run: Slurm is not installed (Debian packages slurmctld, slurmd, slurm-client, munge)');
} else {
  let cluster: SlurmCluster | null = null;
  const tmp = tempDir('slurm-job-run');
  const state = join(tmp.dir, 'state');

  test.before(async () => {
    mkdirSync(state, { recursive: true });
    // The job runs as the submitting user; the directories must be reachable by it.
    chmodSync(tmp.dir, 0o755);
    // Slurm holds GPUs 0-2 for a batch job first, so llmgw's job is given others and the test sees Slurm's choice, not the plan's.
    cluster = await startSlurmCluster([{ name: 'gpu-a01', gpus: 8 }]);
  });

  test.after(async () => {
    await cluster?.stop();
    rmSync(tmp.dir, { recursive: true, force: true });
  });

  test('sbatch the jobs-mode script: the agent in the job records the GPUs Slurm chose, the engine serves, scancel --full --signal=TERM ends both', async () => {
    const c = cluster!;
    const squeue = () => parseSqueue(c.run('squeue', ['--json']));
    // Someone else's batch job holds 3 GPUs first: llmgw's job cannot get the plan's [0, 1].
    const other = parseSbatchId(c.run('sbatch', ['--parsable', '--gres=gpu:3', '--partition=gpu', '--output=/dev/null', '--wrap', 'sleep 300']));
    assert.ok(other !== null);
    await waitFor('the other job to run', () => (squeue().find((j) => j.id === other)?.state === 'running' ? true : undefined));

    const port = await freePort();
    const start: StartRequest = {
      replica: 'stub-0',
      model: 'stub',
      spec: 'abc123',
      weights: 'stub',
      weightsPath: join(tmp.dir, 'weights'),
      gpus: [0, 1],
      port,
      endpoint: `http://127.0.0.1:${port}`,
      rank: 0,
      peers: ['gpu-a01'],
      command: [process.execPath, STUB, '--host', '127.0.0.1', '--port', String(port), '--model', 'stub'],
      env: { CUDA_VISIBLE_DEVICES: '0,1' },
      health: '/health',
      startTimeoutSeconds: 60,
    };
    const script = jobScript({
      replica: 'stub-0',
      rank: 0,
      node: 'gpu-a01',
      gpus: 2,
      partition: 'gpu',
      agentCommand: `env LLMGW_STATE_DIR=${state} ${process.execPath} ${BUNDLE} agent`,
      request: { ...start, lease: { epoch: 4, holder: 'test' } },
    });
    const id = parseSbatchId(c.run('sbatch', ['--parsable'], script));
    assert.ok(id !== null);
    await until('the engine to answer /health', async () => ((await health(port)) === 200 ? true : undefined));

    const job = squeue().find((j) => j.id === id);
    assert.is(job?.state, 'running');
    const chosen = job?.nodes.find((nd) => nd.name === 'gpu-a01')?.indices ?? [];
    assert.is(chosen.length, 2);
    const held = squeue().find((j) => j.id === other)?.nodes[0]?.indices ?? [];
    assert.equal(
      chosen.filter((g) => held.includes(g)),
      [],
      'Slurm gave llmgw`s job GPUs the other job does not hold',
    );

    const env = { LLMGW_STATE_DIR: state, PATH: process.env.PATH };
    const out = await runAgent('report', JSON.stringify({ version: 1, node: 'gpu-a01', storage: [], weights: [] }), env);
    const replica = (JSON.parse(out.stdout) as AgentReport).replicas.find((r) => r.id === 'stub-0');
    assert.equal([replica?.gpus, replica?.slurmJob, replica?.state], [chosen, id, 'running']);
    // No ConstrainDevices here: the engine sees the node's own indices, the ones Slurm chose.
    assert.is((await readRecord(env, 'stub-0'))?.env.CUDA_VISIBLE_DEVICES, chosen.join(','));

    await until('the job`s epoch to be recorded', async () => {
      const fenced = await runAgent('apply', JSON.stringify({ version: 1, node: 'gpu-a01', lease: { epoch: 3, holder: 'old' }, start: [], stop: ['x'] }), env);
      return fenced.stdout.includes('fenced: epoch 3 < 4') ? true : undefined;
    });

    c.run('scancel', scancelArgv(id).term.slice(1));
    await until('the engine to stop', async () => ((await health(port)) === 0 ? true : undefined));
    await waitFor('the job to end', () => {
      const s = squeue().find((j) => j.id === id)?.state;
      return s !== 'running' && s !== 'pending' && s !== 'completing' ? true : undefined;
    });
    const after = await runAgent('report', JSON.stringify({ version: 1, node: 'gpu-a01', storage: [], weights: [] }), env);
    assert.is((JSON.parse(after.stdout) as AgentReport).replicas.find((r) => r.id === 'stub-0')?.state, 'failed');
  });
}

test.run();
