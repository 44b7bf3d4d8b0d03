import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runAgent } from '../../src/agent/main.js';
import { getValidator } from '../../src/util/schema.js';
import { fakeGpuEnv } from '../../src/sim/fake-nvidia-smi.js';
import { makeNode, type TestNode } from './helpers.js';

let node: TestNode;
test.before(async () => {
  node = await makeNode([{ name: 'NVIDIA H100 80GB HBM3' }, { name: 'NVIDIA H100 80GB HBM3', unhealthy: 'ecc' }]);
});
test.after(async () => {
  await node.cleanup();
});

const reportReq = JSON.stringify({ version: 1, node: 'n1', storage: [], weights: [] });

test('the report, with GPUs, storage and warnings, passes the agent-report schema', async () => {
  const r = await node.report([{ path: node.dir, kind: 'shared', filer: 'f1' }], ['org/m', '/abs']);
  assert.equal(getValidator('agent-report')(r), { ok: true });
  assert.equal(r.storage, [{ path: node.dir, kind: 'shared', filer: 'f1', weights: [], incomplete: [] }]);
});

test('report reads GPUs from the fake nvidia-smi named by LLMGW_NVIDIA_SMI, with no foreign processes on any', async () => {
  const r = await node.report();
  assert.equal(r, {
    version: 1,
    gpus: [
      { index: 0, uuid: 'GPU-00000000-0000-4000-8000-000000000000', name: 'NVIDIA H100 80GB HBM3', memoryMiB: 81559, healthy: true, foreign: 0 },
      {
        index: 1,
        uuid: 'GPU-00000000-0000-4000-8000-000000000001',
        name: 'NVIDIA H100 80GB HBM3',
        memoryMiB: 81559,
        healthy: false,
        reason: 'uncorrectable ECC errors: 2',
        foreign: 0,
      },
    ],
    replicas: [],
    storage: [],
    warnings: [],
  });
});

test('a request that names no storage (the list absent or empty) reports storage []', async () => {
  for (const req of [
    { version: 1, node: 'n1' },
    { version: 1, node: 'n1', storage: [], weights: ['org/m'] },
  ]) {
    const out = await runAgent('report', JSON.stringify(req), node.env);
    assert.is(out.code, 0, out.stderr);
    assert.equal(JSON.parse(out.stdout).storage, []);
  }
});

test('without any nvidia-smi the report has no GPUs and says why', async () => {
  const out = await runAgent('report', reportReq, { PATH: '/nonexistent', LLMGW_STATE_DIR: join(node.dir, 'state') });
  assert.is(out.code, 0);
  const r = JSON.parse(out.stdout);
  assert.equal(r.gpus, []);
  assert.equal(r.warnings, ['no GPUs reported: nvidia-smi not found or not executable (ENOENT)']);
});

test('a failing nvidia-smi gives no GPUs and a warning with its message', async () => {
  const env: Record<string, string | undefined> = { ...node.env, ...fakeGpuEnv(join(node.dir, 'gpus.csv')), LLMGW_FAKE_GPUS: '' };
  const r = JSON.parse((await runAgent('report', reportReq, env)).stdout);
  assert.equal(r.gpus, []);
  assert.equal(r.warnings, [
    `no GPUs reported: ${env.LLMGW_NVIDIA_SMI} failed (exit 9: NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.)`,
  ]);
});

test('an old driver that rejects remapped_rows.failure is asked again without it', async () => {
  const script = join(node.dir, 'old-smi.sh');
  await writeFile(
    script,
    '#!/bin/sh\ncase "$1" in *compute-apps*) exit 0;; *remapped_rows*) echo \'Field "remapped_rows.failure" is not a valid field to query.\'; exit 2;; esac\necho "0, GPU-old, Tesla V100-SXM2-16GB, 16160, 0, No"\n',
  );
  await chmod(script, 0o755);
  const r = JSON.parse((await runAgent('report', reportReq, { ...node.env, LLMGW_NVIDIA_SMI: script })).stdout);
  assert.equal(r.gpus, [{ index: 0, uuid: 'GPU-old', name: 'Tesla V100-SXM2-16GB', memoryMiB: 16160, healthy: true, foreign: 0 }]);
  assert.equal(r.warnings, []);
});

test('a bad request is exit 1 with one line on stderr, never a throw', async () => {
  for (const [input, line] of [
    ['not json', 'llmgw agent: bad report request: request is not JSON\n'],
    ['{"version":2}', 'llmgw agent: bad report request: unsupported request version 2 (this agent speaks 1)\n'],
    [
      '{"version":1,"node":"n1","weights":[],"storage":[{"path":"/m","kind":"nfs"}]}',
      'llmgw agent: bad report request: /storage/0/kind: must be one of "local", "shared"\n',
    ],
  ] as const) {
    const out = await runAgent('report', input, node.env);
    assert.equal(out, { stdout: '', stderr: line, code: 1 });
  }
  const out = await runAgent('frob', '{}', node.env);
  assert.equal(out, { stdout: '', stderr: 'llmgw agent: unknown subcommand "frob" (expected report or apply)\n', code: 1 });
});

test('a bad apply request changes nothing and names the problem', async () => {
  const out = await runAgent('apply', JSON.stringify({ version: 1, node: 'n1', start: [], stop: ['../etc'] }), node.env);
  assert.equal(out, { stdout: '', stderr: 'llmgw agent: bad apply request: /stop/0: "../etc" is not a replica id\n', code: 1 });
  const out2 = await runAgent('apply', JSON.stringify({ version: 1, node: 'n1', start: [{ replica: 'm-0' }], stop: [] }), node.env);
  assert.is(out2.code, 1);
  assert.match(out2.stderr, /^llmgw agent: bad apply request: \/start\/0: must have required property 'model';/);
  assert.is(out2.stderr.split('\n').length, 2, 'one line');
});

test.run();
