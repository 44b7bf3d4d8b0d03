// Acceptance of docs/slurm.md's observe mode end to end: a real reconcile over
// the simulated fleet, with a real Slurm 22.05 cluster on loopback as
// `slurm.host` (test/e2e/slurm-observe-world.ts). Slurm drains gpu-a03 and
// reserves gpu-a04 for someone else, and a batch job holds 4 of gpu-a01's 8
// GPUs: the drained and the reserved node get no replica and STATUS.md says why
// in Slurm's words; exactly 4 GPUs of gpu-a01 are placeable (the other 4 are
// `other`). A node drained under a running replica keeps the replica. Without
// Slurm installed this file skips, saying so.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { slurmAvailable, waitFor } from '../slurm/cluster.js';
import { of, settle } from './lifecycle-world.js';
import { startSlurmWorld, type SlurmWorld } from './slurm-observe-world.js';

const MODELS =
  'apiVersion: llmgw/v1\nkind: Models\nmodels:\n' +
  // Four H100 nodes (gpu-a01…a04): `eight` wants a whole one on each, `four` fits in half of one.
  '  - { name: eight, weights: org/eight, engine: vllm, gpuClass: H100, gpus: 8, replicas: 4 }\n' +
  '  - { name: four, weights: org/four, engine: vllm, gpuClass: H100, gpus: 4, replicas: 1 }\n';

let s: SlurmWorld;
let batch = '';

if (!slurmAvailable()) {
  console.log('SKIP test/e2e/slurm-observe: Slurm is not installed (Debian packages slurmctld, slurmd, slurm-client, munge)');
} else {
  test.before(async () => {
    s = await startSlurmWorld(MODELS);
    const c = s.cluster;
    c.run('scontrol', ['update', 'nodename=gpu-a03', 'state=drain', 'reason=maintenance']);
    c.run('scontrol', ['create', 'reservation', 'reservationname=batch-week', 'starttime=now', 'duration=120', 'nodes=gpu-a04', 'users=root']);
    batch = s.submit(['--gres=gpu:4', '--nodelist=gpu-a01', '--job-name=batch/train']);
    await s.waitJob(batch, ['RUNNING']);
    await waitFor('gpu-a04 reserved', () => (c.nodeStates().get('gpu-a04')?.includes('reserved') ? true : undefined));
  });

  test.after(async () => {
    await s.close();
  });

  test('a drained and a reserved node get no replica, a batch job`s 4 GPUs are `other`: exactly 4 placeable on gpu-a01; STATUS.md says why in Slurm`s words', async () => {
    const first = await s.w.tick();
    assert.ok(first.plan, 'the tick planned');
    const starts = first.plan.actions.filter((a) => a.op === 'start');
    assert.equal(
      starts.map((a) => [a.model, a.placement]),
      [
        ['eight', [{ node: 'gpu-a02', gpus: [0, 1, 2, 3, 4, 5, 6, 7] }]],
        ['four', [{ node: 'gpu-a01', gpus: [4, 5, 6, 7] }]],
      ],
    );
    assert.equal(
      first.plan.unplaceable.map((u) => [u.model, u.missing]),
      [['eight', 3]],
    );
    const done = await settle(s.w);
    assert.equal(
      (await s.w.replicas()).map((r) => [r.model, r.node, r.gpus, r.state]),
      [
        ['eight', 'gpu-a02', [0, 1, 2, 3, 4, 5, 6, 7], 'running'],
        ['four', 'gpu-a01', [4, 5, 6, 7], 'running'],
      ],
    );
    const report = done.report!;
    assert.equal(report.nodes.slurm, [
      { node: 'gpu-a03', state: 'idle+drain', reason: 'maintenance' },
      { node: 'gpu-a04', state: 'idle+reserved', reason: 'reservation batch-week' },
    ]);
    assert.equal(
      report.capacity.find((c) => c.class === 'H100'),
      { class: 'H100', total: 32, used: 12, free: 0, unhealthy: 0, other: 4, unreachable: 0, cordoned: 16 },
    );
    assert.equal(report.nodes.other, [{ node: 'gpu-a01', gpus: [0, 1, 2, 3] }]);
    const status = await readFile(join(s.w.e.workdir, 'STATUS.md'), 'utf8');
    assert.match(status, '\n- gpu-a03: Slurm idle\\+drain — maintenance\n');
    assert.match(status, '\n- gpu-a04: Slurm idle\\+reserved — reservation batch-week\n');
    // The snapshot carries what Slurm said, for a PR's plan to read.
    const observed = JSON.parse(await readFile(join(s.w.e.workdir, '.llmgw/observed.json'), 'utf8')) as {
      slurm?: { nodes: Record<string, { gpusAllocated: number }> };
    };
    assert.is(observed.slurm?.nodes['gpu-a01']?.gpusAllocated, 4);
  });

  test('Slurm drains the node under a running replica: no stop, the replica keeps running, STATUS.md gives the reason', async () => {
    const [eight] = await of(s.w, 'eight', 'running');
    assert.is(eight?.node, 'gpu-a02');
    s.cluster.run('scontrol', ['update', 'nodename=gpu-a02', 'state=drain', 'reason=swap the PSU']);
    await waitFor('gpu-a02 drained', () => (s.cluster.nodeStates().get('gpu-a02')?.includes('drain') ? true : undefined));
    const r = await s.w.tick();
    assert.equal(
      r.plan!.actions.filter((a) => a.op === 'stop'),
      [],
    );
    assert.equal(
      (await of(s.w, 'eight', 'running')).map((x) => x.id),
      [eight!.id],
    );
    const status = await readFile(join(s.w.e.workdir, 'STATUS.md'), 'utf8');
    assert.match(status, '\n- gpu-a02: Slurm idle\\+drain — swap the PSU\n');
  });
}

test.run();
