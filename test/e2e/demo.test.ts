import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { canaryEnv, leaksIn, remoteLeaks } from '../helpers/leak-check.js';

const exec = promisify(execFile);
const main = fileURLToPath(new URL('../../src/cli/main.js', import.meta.url));

test('llmgw demo starts replicas at tick 1, sees them running at tick 2, and leaves only the repo behind', async () => {
  // Canary secrets in its environment (docs/security.md): none may reach its output or its repo.
  const { stdout, stderr } = await exec(process.execPath, [main, 'demo'], { timeout: 60_000, env: { ...process.env, NO_COLOR: '1', ...canaryEnv() } });
  assert.equal(leaksIn(stdout + stderr, 'llmgw demo'), []);
  assert.match(stdout, /Plan: 7 to start, 0 to stop, 0 cannot be placed\./);
  assert.match(stdout, /started 7, stopped 0, waiting 0, failed 0; committed [0-9a-f]{12} and pushed/);
  assert.match(stdout, /7 of 7 new replicas answer their health check/);
  assert.match(stdout, /5 models, 7 replicas: 7 running, 0 starting, 0 failed\./);
  assert.match(stdout, /-> 200: Hello from the llmgw stub engine\./);
  assert.match(
    stdout,
    /llmgw: deepseek-v3, llama-3\.1-70b ×2, llama-3\.1-8b ×2 and 2 more running \(demo\)\s+\(llmgw\)\n[0-9a-f]+ llmgw: started deepseek-v3, llama-3\.1-70b ×2, llama-3\.1-8b ×2 and 2 more \(demo\)/,
  );
  const dir = /the repo stays in (\S+) /.exec(stdout)?.[1];
  assert.ok(dir);
  assert.equal(await remoteLeaks(`${dir}/checkout`), []);
  const { stdout: log } = await exec('git', ['-C', `${dir}/checkout`, 'log', '--format=%s']);
  assert.is(log.split('\n')[0], 'llmgw: deepseek-v3, llama-3.1-70b ×2, llama-3.1-8b ×2 and 2 more running (demo)');
  const block = /loopback address \((127\.\d+)\./.exec(stdout)?.[1];
  assert.ok(block);
  const { stdout: ps } = await exec('ps', ['-eo', 'args']);
  assert.not.ok(ps.includes(`--host ${block}.`), 'a stub engine of the demo is still running');
  await rm(dir, { recursive: true, force: true });
});

const OWN_CLUSTER = `apiVersion: llmgw/v1
kind: Cluster
name: my-lab
fabrics: [rack-1, rack-2]
gpuClasses:
  big: "NVIDIA A100*"
nodes:
  - { name: "lab[1-2]", fabric: rack-1, storage: [{ path: /data/models, kind: local }] }
  - { name: "lab[3-4]", fabric: rack-2 }
engines:
  vllm: { command: [vllm, serve, "{weightsPath}", --port, "{port}"] }
`;
const OWN_MODELS = `apiVersion: llmgw/v1
kind: Models
models:
  - { name: qwen-7b, weights: Qwen/Qwen2.5-7B-Instruct, engine: vllm, gpuClass: big, gpus: 2, replicas: 2 }
  - { name: llama-70b, weights: meta-llama/Llama-3.1-70B-Instruct, engine: vllm, gpuClass: big, gpus: 8, nodes: 2 }
`;

test("llmgw demo --repo DIR runs one's own cluster.yaml and models.yaml on simulated nodes: its classes, its fabrics, no router", async () => {
  const own = await mkdtemp(join(tmpdir(), 'llmgw-own-'));
  await writeFile(join(own, 'cluster.yaml'), OWN_CLUSTER);
  await writeFile(join(own, 'models.yaml'), OWN_MODELS);
  try {
    const { stdout } = await exec(process.execPath, [main, 'demo', '--repo', own], { timeout: 90_000, env: { ...process.env, NO_COLOR: '1' } });
    assert.match(stdout, new RegExp(`starting a simulated fleet for ${own} in `));
    assert.match(stdout, /^4 nodes, each a real SSH server on its own loopback address/m);
    assert.match(stdout, /Plan: 3 to start, 0 to stop, 0 cannot be placed\./);
    assert.match(stdout, /\+ start +llama-70b-0 +(lab1\[0-7\],lab2\[0-7\]|lab3\[0-7\],lab4\[0-7\]) /, 'two whole nodes of one fabric');
    assert.match(stdout, /^# Fleet status: my-lab$/m);
    assert.match(stdout, /^\| big \| `[^`]+` \| 32 \| 20 \| 12 \| 0 \| 0 \| 0 \| 0 \|$/m, 'eight GPUs of class big per node, 2+2+16 used');
    assert.match(stdout, /2 models, 3 replicas: 3 running, 0 starting, 0 failed\./);
    assert.not.match(stdout, /A request through the router/, 'no router in this cluster.yaml');
    const dir = /the repo stays in (\S+) /.exec(stdout)?.[1];
    await rm(dir!, { recursive: true, force: true });
  } finally {
    await rm(own, { recursive: true, force: true });
  }
});

test('llmgw demo --repo refuses a config too large to simulate, or an invalid one, with one line and exit 1', async () => {
  const own = await mkdtemp(join(tmpdir(), 'llmgw-own-'));
  try {
    await writeFile(join(own, 'cluster.yaml'), OWN_CLUSTER.replace('"lab[3-4]"', '"lab[3-400]"'));
    await writeFile(join(own, 'models.yaml'), OWN_MODELS);
    const big = await exec(process.execPath, [main, 'demo', '--repo', own]).then(
      () => null,
      (e: unknown) => e as { code: number; stderr: string },
    );
    assert.is(big?.code, 1);
    assert.is(big?.stderr, `llmgw demo: ${own}/cluster.yaml has 400 nodes; the simulation runs at most 100 (an SSH server each, in this process)\n`);
    await writeFile(join(own, 'models.yaml'), OWN_MODELS.replace('gpus: 2,', 'gpus: zero,'));
    await writeFile(join(own, 'cluster.yaml'), OWN_CLUSTER);
    const bad = await exec(process.execPath, [main, 'demo', '--repo', own]).then(
      () => null,
      (e: unknown) => e as { code: number; stderr: string },
    );
    assert.is(bad?.code, 1);
    assert.match(bad!.stderr, new RegExp(`^${own}/models\\.yaml:4:\\d+: models\\[0\\]\\.gpus: `));
  } finally {
    await rm(own, { recursive: true, force: true });
  }
});

test('llmgw demo --keep stops cleanly and at once on Ctrl-C, even pressed twice: exit 0, no engine left running', async () => {
  const child = spawn(process.execPath, [main, 'demo', '--keep'], { env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const end = Date.now() + 30_000;
  while (!out.includes('Ctrl-C stops') && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
  const signalled = Date.now();
  child.kill('SIGINT');
  child.kill('SIGINT');
  assert.is(await exited, 0, out);
  const seconds = (Date.now() - signalled) / 1000;
  assert.ok(seconds < 5, `exited ${seconds} s after Ctrl-C: the wait between ticks was not cancelled`);
  assert.match(out, /Stopped every engine, SSH server and the router/);
  const block = /loopback address \((127\.\d+)\./.exec(out)?.[1];
  const { stdout: ps } = await exec('ps', ['-eo', 'args']);
  assert.not.ok(ps.includes(`--host ${block}.`), 'a stub engine of the demo is still running');
  const dir = /the repo stays in (\S+) /.exec(out)?.[1];
  await rm(dir!, { recursive: true, force: true });
});

test.run();
