// Acceptance of docs/placement.md#gpu-buckets's GPUs in other hands, end to end over
// the simulated fleet: someone else's process on gpu-a01's GPU 3 (a real
// process, listed by the fake nvidia-smi's compute apps and judged foreign by
// the real agent) puts that GPU in the bucket `other`; placement works around
// it and STATUS.md says where it is.

import { spawn, type ChildProcess } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFakeGpus, type FakeGpu } from '../../src/sim/fake-nvidia-smi.js';
import { of, settle, startLifecycleWorld, type LifecycleWorld } from './lifecycle-world.js';

const MODELS =
  'apiVersion: llmgw/v1\nkind: Models\nmodels:\n' +
  // Four H100 nodes: `eight` fills whole ones, `seven` fits where seven GPUs are left.
  '  - { name: eight, weights: org/eight, engine: vllm, gpuClass: H100, gpus: 8, replicas: 4 }\n' +
  '  - { name: seven, weights: org/seven, engine: vllm, gpuClass: H100, gpus: 7, replicas: 1 }\n';

let w: LifecycleWorld;
let someone: ChildProcess;
test.before(async () => {
  w = await startLifecycleWorld('apiVersion: llmgw/v1\nkind: Models\nmodels: []\n');
  someone = spawn('sleep', ['600'], { stdio: 'ignore' });
  const gpus: FakeGpu[] = Array.from({ length: 8 }, (_, i) => ({
    name: 'NVIDIA H100 80GB HBM3',
    memoryMiB: 81559,
    uuid: `GPU-gpu-a01-${i}`,
    ...(i === 3 ? { processes: [someone.pid!] } : {}),
  }));
  await writeFakeGpus(w.e.world.agentEnv('gpu-a01').LLMGW_FAKE_GPUS!, gpus);
});
test.after(async () => {
  someone.kill();
  await w.close();
});

test("a node with someone else's process on GPU 3: placement avoids that GPU, and STATUS.md shows it", async () => {
  await w.config({ models: MODELS });
  const first = await w.tick();
  const starts = first.plan!.actions.filter((a) => a.op === 'start');
  // Not a free whole node any more: three `eight`s on the other H100 nodes, the fourth cannot be placed.
  assert.equal(
    starts
      .filter((a) => a.model === 'eight')
      .map((a) => a.placement[0]!.node)
      .sort(),
    ['gpu-a02', 'gpu-a03', 'gpu-a04'],
  );
  assert.equal(
    first.plan!.unplaceable.map((u) => [u.model, u.missing]),
    [['eight', 1]],
  );
  // `seven` takes the seven GPUs around it.
  assert.equal(
    starts.filter((a) => a.model === 'seven').map((a) => a.placement),
    [[{ node: 'gpu-a01', gpus: [0, 1, 2, 4, 5, 6, 7] }]],
  );

  const done = await settle(w);
  const onA01 = (await w.replicas()).filter((r) => r.node === 'gpu-a01');
  assert.ok(
    onA01.every((r) => !r.gpus.includes(3)),
    JSON.stringify(onA01),
  );
  assert.equal((await of(w, 'seven', 'running')).length, 1);
  const h100 = done.report!.capacity.find((c) => c.class === 'H100')!;
  assert.equal(h100, { class: 'H100', total: 32, used: 31, free: 0, unhealthy: 0, other: 1, unreachable: 0, cordoned: 0 });
  assert.equal(done.report!.nodes.other, [{ node: 'gpu-a01', gpus: [3] }]);
  assert.match(done.status, /\| H100 \| `[^`]+` \| 32 \| 31 \| 0 \| 0 \| 1 \| 0 \| 0 \|/);
  assert.match(done.status, /- 1 GPU in use by someone else \(placement leaves it alone\): [\w.-]+:3\n/);
  assert.match(done.status, /\n\*\*GPUs in other hands\*\* \(1\): gpu-a01:3\n/);
});

test.run();
