// Observe mode against a real Slurm 22.05 cluster on loopback (test/slurm/cluster.ts),
// read over SSH by llmgw's own gather (docs/slurm.md): a drained node, a node in
// a maintenance reservation and one in another's reservation are conditions in
// Slurm's words; a batch job holding 4 of a node's 8 GPUs counts 4 there as
// another's; llmgw's own job is listed, not counted; a pending job's GPUs are
// `pending`; Slurm unreachable keeps the last view, then makes every node unknown.
// Without Slurm installed this file skips, saying so.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { gatherSnapshot } from '../../src/gather/gather.js';
import { observeSlurm, SLURM_COMMANDS } from '../../src/gather/slurm.js';
import { slurmConditionOf } from '../../src/slurm/condition.js';
import type { Config, SlurmConfig } from '../../src/types/config.js';
import type { SlurmView } from '../../src/types/snapshot.js';
import { emptyState } from '../../src/types/state.js';
import { nodeConfig, testCluster } from '../fixtures/index.js';
import { tempDir } from '../gather/sim-helpers.js';
import { slurmAvailable, startSlurmCluster, waitFor, type SlurmCluster } from './cluster.js';
import { startSlurmSsh, type SlurmSsh } from './slurm-ssh.js';

const NODES = [
  { name: 'gpu-a01', gpus: 8 },
  { name: 'gpu-a02', gpus: 8 },
  { name: 'gpu-a03', gpus: 4 },
  { name: 'gpu-a04', gpus: 4 },
  { name: 'gpu-a05', gpus: 4 },
];

let cluster: SlurmCluster | null = null;
let link: SlurmSsh | null = null;
const tmp = tempDir('slurm-observe');
const ids: Record<string, string> = {};

function config(over: Partial<SlurmConfig> = {}): Config {
  const l = link!;
  const slurm: SlurmConfig = { host: l.target.host, port: l.target.port, mode: 'observe', yield: false, names: {}, partition: 'gpu', ...over };
  const hosts = new Map(l.fleet.hosts.map((h) => [h.name, h]));
  const nodes = NODES.map((n) => {
    const h = hosts.get(n.name)!;
    return nodeConfig(n.name, { host: h.host, port: h.port });
  });
  return { cluster: testCluster({ ssh: l.ssh, nodes, slurm }), models: [] };
}

async function observe(previous?: SlurmView, now = new Date(), c = config()): Promise<SlurmView> {
  const view = await observeSlurm(c, link!.transport, previous, now);
  if (view === undefined) throw new Error('no view with slurm: set');
  return view;
}

if (!slurmAvailable()) {
  console.log('SKIP test/slurm/observe: Slurm is not installed (Debian packages slurmctld, slurmd, slurm-client, munge)');
} else {
  test.before(async () => {
    cluster = await startSlurmCluster(NODES);
    link = await startSlurmSsh(
      cluster,
      join(tmp.dir, 'keys'),
      NODES.map((n) => n.name),
    );
    const c = cluster;
    c.run('scontrol', ['update', 'nodename=gpu-a03', 'state=drain', 'reason=bad fan, ticket 4711']);
    c.run('scontrol', ['create', 'reservation', 'reservationname=maint-a04', 'starttime=now', 'duration=120', 'nodes=gpu-a04', 'flags=maint', 'users=root']);
    c.run('scontrol', ['create', 'reservation', 'reservationname=batch-week', 'starttime=now', 'duration=120', 'nodes=gpu-a05', 'users=root']);
    const submit = (args: string[]): string => c.run('sbatch', ['--parsable', '-o', '/dev/null', ...args, '--wrap', 'exec sleep 600']).trim();
    ids.batch = submit(['--gres=gpu:4', '--nodelist=gpu-a01', '--job-name=batch/train']);
    ids.llmgw = submit(['--gres=gpu:2', '--nodelist=gpu-a02', '--job-name=llmgw/r-abc12/0']);
    await waitFor('both jobs running', () => {
      const jobs = (JSON.parse(c.run('squeue', ['--json'])) as { jobs: { job_id: number; job_state: string }[] }).jobs;
      return [ids.batch, ids.llmgw].every((id) => jobs.find((j) => String(j.job_id) === id)?.job_state === 'RUNNING') ? true : undefined;
    });
    // Needs all 8 GPUs of gpu-a01, 4 of which the batch job holds: it pends.
    ids.pending = submit(['--gres=gpu:8', '--nodelist=gpu-a01', '--job-name=batch/big']);
  });

  test.after(async () => {
    await link?.close();
    await cluster?.stop();
    tmp.remove();
  });

  test('the view over SSH: Slurm`s states and reasons, another`s GPUs per node, llmgw`s job listed, the pending GPUs', async () => {
    // A maintenance reservation's flags show a scheduler pass after it is made: poll, never sleep.
    let v: SlurmView | undefined;
    const deadline = Date.now() + 60_000;
    for (;;) {
      v = await observe();
      if (v.nodes['gpu-a04']?.state.includes('maintenance') || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 300));
    }
    assert.is(v.reachable, true, v.error);
    assert.equal(v.nodes['gpu-a03'], { state: 'idle+drain', reason: 'bad fan, ticket 4711', gpusAllocated: 0, partitions: ['gpu'] });
    assert.is(v.nodes['gpu-a01']?.gpusAllocated, 4);
    // Slurm's indices of the batch job: observe mode places on the other four.
    assert.equal(v.nodes['gpu-a01']?.gpuIndicesAllocated, [0, 1, 2, 3]);
    assert.is(v.nodes['gpu-a01']?.state, 'mixed');
    assert.is(v.nodes['gpu-a02']?.gpusAllocated, 0, 'llmgw`s own job is not another`s');
    assert.equal(v.jobs, [{ id: ids.llmgw, name: 'llmgw/r-abc12/0', node: 'gpu-a02', state: 'running', gpus: 2 }]);
    assert.is(v.pending, 8);
    assert.equal(v.pendingJobs, [ids.pending]);
    // What yield reads of it: its GPUs and its --nodelist, as cluster.yaml names.
    assert.equal(v.pendingNeeds, [{ id: ids.pending, gpus: 8, partitions: ['gpu'], nodes: ['gpu-a01'] }]);
    assert.equal(
      v.nodes['gpu-a04']?.reservations?.map((r) => [r.name, r.active, r.flags]),
      [['maint-a04', true, ['maint', 'spec_nodes']]],
    );
    assert.equal(link!.commands.slice(0, 3).sort(), [SLURM_COMMANDS.reservations, SLURM_COMMANDS.sinfo, SLURM_COMMANDS.squeue].sort());
  });

  test('conditions in Slurm`s words: the drain with its reason, the maintenance and the other reservation; busy nodes are placeable', async () => {
    const v = await observe();
    const now = new Date();
    assert.equal(slurmConditionOf(v, 'gpu-a03', now), { state: 'idle+drain', reason: 'bad fan, ticket 4711' });
    assert.equal(slurmConditionOf(v, 'gpu-a04', now), { state: 'idle+maintenance+reserved', reason: 'reservation maint-a04 (maint)' });
    assert.equal(slurmConditionOf(v, 'gpu-a05', now), { state: 'idle+reserved', reason: 'reservation batch-week' });
    assert.is(slurmConditionOf(v, 'gpu-a01', now), null);
    assert.is(slurmConditionOf(v, 'gpu-a02', now), null);
    // llmgw's own reservation keeps its node placeable.
    const own = await observe(undefined, now, config({ reservation: 'batch-week' }));
    assert.is(slurmConditionOf(own, 'gpu-a05', now), null);
  });

  test('the gather carries the view in the snapshot beside the nodes` reports; without slurm: it has none', async () => {
    const c = config();
    const snap = await gatherSnapshot(c, { transport: link!.transport, previous: null, state: emptyState(), now: () => new Date() });
    assert.equal(
      snap.nodes.map((n) => [n.name, n.reachable]),
      NODES.map((n) => [n.name, true]),
    );
    assert.is(snap.slurm?.reachable, true);
    assert.is(snap.slurm?.nodes['gpu-a03']?.state, 'idle+drain');
    const { slurm: _unused, ...noSlurm } = c.cluster;
    const plain = await gatherSnapshot({ ...c, cluster: noSlurm }, { transport: link!.transport, previous: null, state: emptyState(), now: () => new Date() });
    assert.is('slurm' in plain, false);
  });

  test('a drain that is resumed is placeable again at the next read', async () => {
    cluster!.run('scontrol', ['update', 'nodename=gpu-a03', 'state=resume']);
    let v = await observe();
    const deadline = Date.now() + 60_000;
    while (v.nodes['gpu-a03']?.state !== 'idle' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 300));
      v = await observe();
    }
    assert.is(slurmConditionOf(v, 'gpu-a03', new Date()), null);
    cluster!.run('scontrol', ['update', 'nodename=gpu-a03', 'state=drain', 'reason=bad fan, ticket 4711']);
  });

  test('Slurm unreachable: the last view holds, marked, within lostAfter; past it every node is unknown', async () => {
    const last = await observe();
    assert.is(last.reachable, true);
    await link!.fleet.setFaultAsync('slurm-ctl', 'refuse');
    try {
      const t0 = new Date();
      const held = await observe(last, t0);
      assert.is(held.reachable, false);
      assert.ok(held.error && held.error.length > 0);
      assert.equal(held.nodes, last.nodes);
      assert.equal(slurmConditionOf(held, 'gpu-a03', t0), { state: 'idle+drain', reason: 'bad fan, ticket 4711' });
      const lost = await observe(held, new Date(t0.getTime() + 600_000));
      assert.equal(lost.nodes, {});
      assert.equal(slurmConditionOf(lost, 'gpu-a01', t0)?.state, 'unknown');
    } finally {
      await link!.fleet.setFaultAsync('slurm-ctl', null);
    }
  });
}

test.run();
