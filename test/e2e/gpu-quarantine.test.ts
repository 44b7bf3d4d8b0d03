// Acceptance of docs/placement.md#quarantined-gpus end to end over the simulated fleet:
// the real agent reads the node's fake kernel log (docs/simulation.md), a real-format
// `NVRM: Xid` line for GPU 2 (bus 3b) quarantines exactly that GPU — state.json,
// `unhealthy`, the event, STATUS.md — and its replica is replaced elsewhere; an
// application Xid (13) quarantines nothing and is shown on the replica.

import { appendFile } from 'node:fs/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fakeKernelLogPath, writeFakeGpus, type FakeGpu } from '../../src/sim/fake-nvidia-smi.js';
import { of, settle, startLifecycleWorld, type LifecycleWorld } from './lifecycle-world.js';

const MODELS =
  'apiVersion: llmgw/v1\nkind: Models\nmodels:\n' + '  - { name: eight, weights: org/eight, engine: vllm, gpuClass: H100, gpus: 8, replicas: 1 }\n';

const XID_79 = 'NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.';
const XID_13 = 'NVRM: Xid (PCI:0000:3b:00): 13, pid=4321, Graphics SM Warp Exception on (GPC 0, TPC 0, SM 0): Out Of Range Address';

/** Eight H100s, GPU 2 on bus 3b so the fixture line names it as a real driver would. */
const H100S: FakeGpu[] = Array.from({ length: 8 }, (_, i) => ({
  name: 'NVIDIA H100 80GB HBM3',
  memoryMiB: 81559,
  ...(i === 2 ? { busId: '00000000:3B:00.0' } : {}),
}));

let w: LifecycleWorld;
test.before(async () => {
  w = await startLifecycleWorld(MODELS, { hook: true });
  for (const node of ['gpu-a01', 'gpu-a02', 'gpu-a03', 'gpu-a04']) await writeFakeGpus(w.e.world.agentEnv(node).LLMGW_FAKE_GPUS!, H100S);
});
test.after(async () => {
  await w.close();
});

function kernelLog(node: string): string {
  return fakeKernelLogPath(w.e.world.agentEnv(node).LLMGW_FAKE_GPUS!);
}

test('an Xid 79 on GPU 2 quarantines exactly that GPU and its replica is replaced; an Xid 13 quarantines nothing', async () => {
  await settle(w);
  const [before] = await of(w, 'eight', 'running');
  assert.ok(before, 'one replica of eight runs');
  const node = before.node;

  // The Xid is in the next report only: the tick that reads it must commit the quarantine.
  await appendFile(kernelLog(node), XID_79 + '\n');
  const seen = await w.tick();
  const state = await w.state();
  assert.equal(Object.keys(state.quarantine ?? {}), [`${node}:2`]);
  const q = state.quarantine![`${node}:2`]!;
  assert.equal([q.node, q.index, q.code, q.reason], [node, 2, 79, 'Xid 79: GPU has fallen off the bus']);
  assert.is(Date.parse(q.until) - Date.parse(q.since), 24 * 3600_000, 'until = since + the default 24h');
  // The replica on it is replaced: a start elsewhere this tick (surge), on a node without the bad GPU.
  const starts = seen.plan!.actions.flatMap((a) => (a.op === 'start' ? [a] : []));
  assert.is(starts.length, 1, JSON.stringify(seen.plan!.actions));
  assert.is.not(starts[0]!.placement[0]!.node, node);

  const done = await settle(w);
  const after = await of(w, 'eight');
  assert.is(after.length, 1);
  assert.is.not(after[0]!.node, node);
  assert.is.not(after[0]!.id, before.id);
  // Counted unhealthy, exactly one GPU: the other seven of that node are free again.
  const h100 = done.report!.capacity.find((c) => c.class === 'H100')!;
  assert.equal([h100.total, h100.used, h100.unhealthy], [32, 8, 1]);
  assert.equal(
    done.report!.unhealthyGpus.map((g) => `${g.node}:${g.index}`),
    [`${node}:2`],
  );
  // STATUS.md says where and why.
  assert.match(
    done.status,
    `- 1 GPU quarantined after a fatal Xid (never placed on; its replica is replaced): ${node}:2 (Xid 79: GPU has fallen off the bus, until ${q.until})`,
  );
  // Still quarantined a report later (state.json, not the Xid, keeps it); the event fired once.
  assert.equal(Object.keys((await w.state()).quarantine ?? {}), [`${node}:2`]);
  assert.equal(
    w.events.filter((e) => e.event === 'gpu.quarantined').map((e) => e.subject),
    [`${node}:2`],
  );

  // An application Xid on the new replica's GPU 2: nothing quarantined, nothing moves, the replica shows it.
  const other = after[0]!.node;
  await appendFile(kernelLog(other), XID_13 + '\n');
  const app = await w.tick();
  assert.equal(Object.keys((await w.state()).quarantine ?? {}), [`${node}:2`]);
  assert.equal(app.plan!.actions, []);
  const row = app.report!.replicas.find((r) => r.id === after[0]!.id)!;
  assert.equal(
    row.xid?.map((x) => [x.node, x.gpu, x.code]),
    [[other, 2, 13]],
  );
  assert.equal(
    app.report!.unhealthyGpus.map((g) => `${g.node}:${g.index}`),
    [`${node}:2`],
  );
});

test.run();
