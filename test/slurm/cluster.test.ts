// The Slurm harness itself (test/slurm/cluster.ts) against Debian's real Slurm
// 22.05: the facts llmgw's Slurm support is built on hold on this machine — GPUs
// as a generic resource with real indices, a drain visible in `sinfo --json` as
// state plus flags, a job's GPUs counted in `gres_used`. Without Slurm installed
// (CI installs slurmctld, slurmd, slurm-client and munge) this FAILS.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { slurmAvailable, startSlurmCluster, waitFor, type SlurmCluster } from './cluster.js';

let cluster: SlurmCluster | null = null;

test.before(async () => {
  if (!slurmAvailable()) throw new Error('Slurm is missing (Debian packages slurmctld, slurmd, slurm-client, munge)');
  cluster = await startSlurmCluster([
    { name: 'gpu-a01', gpus: 8 },
    { name: 'gpu-a02', gpus: 8 },
    { name: 'gpu-a03', gpus: 4 },
  ]);
});

test.after(async () => {
  await cluster?.stop();
});

test('every node of the cluster comes up idle with its GPUs as a generic resource', () => {
  const c = cluster!;
  assert.equal(
    [...c.nodeStates()],
    [
      ['gpu-a01', 'idle'],
      ['gpu-a02', 'idle'],
      ['gpu-a03', 'idle'],
    ],
  );
  const info = JSON.parse(c.run('sinfo', ['--json'])) as { nodes: { name: string; gres: string }[] };
  assert.equal(
    info.nodes.map((n) => [n.name, n.gres]),
    [
      ['gpu-a01', 'gpu:8'],
      ['gpu-a02', 'gpu:8'],
      ['gpu-a03', 'gpu:4'],
    ],
  );
});

test('a batch job asking for 4 GPUs of a node runs there with 4 real indices, and sinfo counts them used', async () => {
  const c = cluster!;
  const script = '#!/bin/sh\necho "gpus=$CUDA_VISIBLE_DEVICES node=$SLURMD_NODENAME"\nexec sleep 600\n';
  const id = c
    .run('sbatch', ['--parsable', '--gres=gpu:4', '--nodelist=gpu-a02', '--job-name=batch/train', '-o', join(c.dir, 'jobs', '%j.out')], script)
    .trim();
  const out = await waitFor('the job to print its GPUs', () => {
    try {
      const text = readFileSync(join(c.dir, 'jobs', `${id}.out`), 'utf8');
      return text.includes('gpus=') ? text.trim() : undefined;
    } catch {
      return undefined;
    }
  });
  assert.is(out, 'gpus=0,1,2,3 node=gpu-a02');
  const info = JSON.parse(c.run('sinfo', ['--json'])) as { nodes: { name: string; state: string; gres_used: string }[] };
  const a02 = info.nodes.find((n) => n.name === 'gpu-a02');
  assert.is(a02?.state, 'mixed');
  assert.ok(a02?.gres_used.startsWith('gpu:4'), a02?.gres_used);
  c.run('scancel', [id]);
});

test('a node drained with a reason shows as idle+drain, with the reason in sinfo', async () => {
  const c = cluster!;
  c.run('scontrol', ['update', 'nodename=gpu-a03', 'state=drain', 'reason=bad fan']);
  const state = await waitFor('the drain', () => (c.nodeStates().get('gpu-a03')?.includes('drain') ? c.nodeStates().get('gpu-a03') : undefined));
  assert.is(state, 'idle+drain');
  const info = JSON.parse(c.run('sinfo', ['--json'])) as { nodes: { name: string; reason: string }[] };
  assert.is(info.nodes.find((n) => n.name === 'gpu-a03')?.reason, 'bad fan');
});

test.run();
