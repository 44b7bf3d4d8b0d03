import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cgroupInUnits } from '../../src/agent/foreign.js';
import { parseComputeApps } from '../../src/agent/nvidia-smi-csv.js';
import { readRecord } from '../../src/agent/replica-store.js';
import { getValidator } from '../../src/util/schema.js';
import { fakeGpuFixture } from '../../src/sim/fake-nvidia-smi.js';
import { fileNode, freePort, stubStart, waitFor } from './helpers.js';

const node = fileNode(test);
const H100 = 'NVIDIA H100 80GB HBM3';
const others: ChildProcess[] = [];
/** Processes that left their replica's group on purpose: a stop does not reach them, so the file ends them. */
const escapees: number[] = [];
test.after(() => {
  for (const c of others) c.kill('SIGKILL');
  for (const pid of escapees) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

/** A process llmgw did not start, as a training job would be. */
function stranger(env: Record<string, string> = {}): number {
  const c = spawn('sleep', ['300'], { stdio: 'ignore', env: { PATH: process.env.PATH, ...env } });
  others.push(c);
  return c.pid as number;
}

async function pidIn(file: string): Promise<number> {
  assert.ok(await waitFor(async () => /^\d+$/.test((await readFile(file, 'utf8').catch(() => '')).trim())), `${file} holds a pid`);
  return Number((await readFile(file, 'utf8')).trim());
}

test('compute-apps rows parse; "No running processes found" and a header are no rows; any other line makes the listing unknown', () => {
  assert.equal(parseComputeApps('GPU-a, 100\nGPU-b, 200\n'), {
    apps: [
      { gpuUuid: 'GPU-a', pid: 100 },
      { gpuUuid: 'GPU-b', pid: 200 },
    ],
  });
  assert.equal(parseComputeApps(''), { apps: [] });
  assert.equal(parseComputeApps('No running processes found\n'), { apps: [] });
  assert.equal(parseComputeApps('gpu_uuid, pid\nGPU-a, 7\n'), { apps: [{ gpuUuid: 'GPU-a', pid: 7 }] });
  assert.equal(parseComputeApps('GPU-a, 1e999\n'), { error: 'unexpected compute-apps line: GPU-a, 1e999' });
  assert.equal(parseComputeApps('GPU-a, -4\n'), { error: 'unexpected compute-apps line: GPU-a, -4' });
  assert.equal(parseComputeApps('GPU-a, 4, extra\n'), { error: 'unexpected compute-apps line: GPU-a, 4, extra' });
});

test('the fixture keeps its old form (GPU rows only) and adds compute apps after a marker', () => {
  assert.is(fakeGpuFixture([{ name: H100 }]).includes('#'), false);
  assert.is(
    fakeGpuFixture([{ name: H100 }, { name: H100, uuid: 'GPU-x', processes: [5, 6] }])
      .split('\n')
      .slice(2)
      .join('\n'),
    '# compute-apps\nGPU-x, 5\nGPU-x, 6\n',
  );
});

test('processes of replicas the agent started are not foreign: the engine, a worker in its group, and one that left the group and its parent', async () => {
  const port = await freePort();
  const worker = join(node.dir, 'worker.pid');
  const escaped = join(node.dir, 'escaped.pid');
  // A worker in the engine's group, and one that made its own session and was reparented (its subshell exits).
  const script = 'w="$0"; e="$1"; shift; sleep 300 & echo $! > "$w"; (setsid sleep 300 & echo $! > "$e") & wait $!; exec "$@"';
  const command = ['/bin/sh', '-c', script, worker, escaped, ...stubStart('x-0', port).command];
  assert.equal((await node.apply([stubStart('fg-0', port, { command })])).results, [{ replica: 'fg-0', op: 'start', ok: true }]);
  const engine = (await readRecord(node.env, 'fg-0'))!.pid;
  const [w, e] = [await pidIn(worker), await pidIn(escaped)];
  escapees.push(e);
  const marked = stranger({ LLMGW_REPLICA_ID: 'not-ours-0' });
  const training = stranger();
  await node.setGpus([
    { name: H100, processes: [engine, w, e] },
    { name: H100, processes: [training, marked, training] },
    { name: H100, processes: [4_194_000] },
    { name: H100 },
  ]);
  const r = await node.report();
  assert.equal(
    r.gpus.map((g) => g.foreign),
    [0, 2, 1, 0],
  );
  assert.equal(r.warnings, []);
  assert.equal(getValidator('agent-report')(r), { ok: true });
  await node.apply([], ['fg-0']);
});

test('each rule alone makes a process ours: its process group, and its ancestry', async () => {
  const inGroup = join(node.dir, 'group.pid');
  const child = join(node.dir, 'child.pid');
  // No LLMGW_REPLICA_ID (env -i): the first is reparented but stays in the group; the second leaves the group under a live parent.
  const groupOnly = ['/bin/sh', '-c', '(env -i sleep 300 & echo $! > "$0") & wait $!; exec sleep 300', inGroup];
  const ancestryOnly = ['/bin/sh', '-c', 'env -i setsid sleep 300 & echo $! > "$0"; exec sleep 300', child];
  const reply = await node.apply([
    stubStart('grp-0', await freePort(), { command: groupOnly }),
    stubStart('anc-0', await freePort(), { command: ancestryOnly }),
  ]);
  assert.equal(
    reply.results.map((r) => r.ok),
    [true, true],
  );
  const [g, c] = [await pidIn(inGroup), await pidIn(child)];
  escapees.push(c);
  await node.setGpus([
    { name: H100, processes: [g] },
    { name: H100, processes: [c] },
  ]);
  assert.equal(
    (await node.report()).gpus.map((x) => x.foreign),
    [0, 0],
  );
  await node.apply([], ['grp-0', 'anc-0']);
});

test("a systemd unit's cgroup makes a process ours (cgroup v1 and v2 lines), and only that unit's", () => {
  const v2 = '0::/system.slice/llmgw-m-0.service\n';
  const v1 = '12:pids:/system.slice/llmgw-m-0.service\n1:name=systemd:/system.slice/llmgw-m-0.service/worker\n';
  assert.is(cgroupInUnits(v2, ['llmgw-m-0']), true);
  assert.is(cgroupInUnits(v1, ['llmgw-m-0']), true);
  assert.is(cgroupInUnits(v2, ['llmgw-m-1']), false);
  assert.is(cgroupInUnits('0::/system.slice/llmgw-m-0.service.d/x\n', ['llmgw-m-0']), false);
  assert.is(cgroupInUnits('0::/user.slice/user-1000.slice/session-4.scope\n', ['llmgw-m-0']), false);
});

test('once the replica is stopped, a process it left behind on a GPU is foreign', async () => {
  const leftover = stranger({ LLMGW_REPLICA_ID: 'fg-0' });
  await node.setGpus([{ name: H100, processes: [leftover] }]);
  assert.equal(
    (await node.report()).gpus.map((g) => g.foreign),
    [1],
    'fg-0 is no longer recorded',
  );
});

test('an nvidia-smi that cannot list compute apps: foreign is left out and a warning says why', async () => {
  await node.setGpus([{ name: H100 }, { name: H100 }], { computeAppsFail: true });
  const r = await node.report();
  assert.equal(
    r.gpus.map((g) => 'foreign' in g),
    [false, false],
  );
  assert.equal(r.warnings, [
    `foreign GPU processes unknown: ${node.env.LLMGW_NVIDIA_SMI} --query-compute-apps failed (exit 15: Failed to query compute processes: Unknown Error)`,
  ]);
  assert.equal(getValidator('agent-report')(r), { ok: true });
});

test.run();
