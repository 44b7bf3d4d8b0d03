// Acceptance of docs/slurm.md's yield end to end: a real reconcile over the
// simulated fleet with a real Slurm 22.05 as `slurm.host` and `yield: true`.
// Two whole-node replicas, `idle` (unused) and `busy` (a request in flight),
// each hold their node's 8 GPUs in Slurm too, as jobs mode's jobs would
// (`llmgw/<replica>/0`); the test stands in for jobs mode's scancel when the
// agent is told to stop one (the apply of jobs mode is not this file's). A
// batch job pends for each node. After llmgw's ticks the job on the idle
// replica's node runs, the commit names its id; the busy replica is never
// yielded and the job on its node still pends. Without Slurm installed this
// file skips, saying so.

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { slurmAvailable, waitFor } from '../slurm/cluster.js';
import { of, settle, stream, until } from './lifecycle-world.js';
import { startSlurmWorld, type SlurmWorld } from './slurm-observe-world.js';

const run = promisify(execFile);
const entry = (name: string, replicas: string) =>
  `  - { name: ${name}, weights: org/${name}, engine: vllm, gpuClass: H100, gpus: 8, priority: 0, replicas: ${replicas}, scaleDownAfter: 1h }\n`;
const HEAD = 'apiVersion: llmgw/v1\nkind: Models\nmodels:\n';
const FIXED = HEAD + entry('idle', '1') + entry('busy', '1');
const RANGED = HEAD + entry('idle', '{ min: 0, max: 1 }') + entry('busy', '{ min: 0, max: 1 }');

let s: SlurmWorld;
/** replica id -> the Slurm job standing for it (jobs mode's `llmgw/<replica>/0`). */
const holders = new Map<string, string>();
const pending: Record<'idle' | 'busy', string> = { idle: '', busy: '' };
const nodeOf: Record<'idle' | 'busy', string> = { idle: '', busy: '' };
const stopped: string[] = [];

/** What jobs mode's stop does after the drain: scancel the replica's job, so Slurm may give its GPUs to another. */
async function standInForJobsMode(_node: string, stdin: string): Promise<void> {
  const req = JSON.parse(stdin) as { stop?: (string | { replica: string })[] };
  for (const item of req.stop ?? []) {
    const id = typeof item === 'string' ? item : item.replica;
    stopped.push(id);
    const job = holders.get(id);
    if (job !== undefined) s.cluster.run('scancel', [job]);
  }
}

if (!slurmAvailable()) {
  console.log('SKIP test/e2e/slurm-yield: Slurm is not installed (Debian packages slurmctld, slurmd, slurm-client, munge)');
} else {
  test.before(async () => {
    s = await startSlurmWorld(FIXED, {
      slurm: { yield: true },
      // idle.after short: a replica unused for 2s is idle (its own scaleDownAfter, 1h, keeps it from scaling itself down).
      cluster: (doc) => void (doc.idle = { after: '2s' }),
      onApply: standInForJobsMode,
    });
    await settle(s.w);
    for (const model of ['idle', 'busy'] as const) {
      const [r] = await of(s.w, model, 'running');
      if (!r) throw new Error(`no running ${model} replica`);
      nodeOf[model] = r.node;
      holders.set(r.id, s.submit(['--gres=gpu:8', `--nodelist=${r.node}`, `--job-name=llmgw/${r.id}/0`]));
    }
    for (const job of holders.values()) await s.waitJob(job, ['RUNNING']);
    // The PR that makes both ranged: each keeps the replica it runs, and may now go to its min.
    await s.w.config({ models: RANGED });
    await s.w.tick();
  });

  test.after(async () => {
    await s.close();
  });

  test('a pending batch job on the idle replica`s node runs after llmgw`s ticks, the commit names it; the busy replica is never yielded', async () => {
    const [busy] = await of(s.w, 'busy', 'running');
    const [idle] = await of(s.w, 'idle', 'running');
    assert.ok(busy && idle);
    // A slow answer keeps a request in flight to busy-0 through every tick below.
    await s.w.stub(busy.endpoint!, { tokenDelayMs: 5_000 });
    void stream(s.w.e.world.routerPort, 'busy', 'hold on').catch(() => undefined);
    await until('a request in flight to the busy replica', async () => ((await s.w.usage()).inflight?.[busy.id] ?? 0) > 0);

    pending.idle = s.submit(['--gres=gpu:8', `--nodelist=${nodeOf.idle}`, '--job-name=batch/on-idle']);
    pending.busy = s.submit(['--gres=gpu:8', `--nodelist=${nodeOf.busy}`, '--job-name=batch/on-busy']);
    await waitFor('both batch jobs pending for resources', () => {
      const jobs = s.jobs();
      return [pending.idle, pending.busy].every((id) => jobs.get(id)?.[0] === 'PENDING' && ['Resources', 'Priority'].includes(jobs.get(id)?.[1] ?? ''))
        ? true
        : undefined;
    });
    await sleep(2500); // idle.after is 2s: the idle replica is idle by then (the router saw it unused)

    const first = await s.w.tick();
    assert.equal(
      first.plan!.actions.filter((a) => a.op === 'stop').map((a) => [a.replica, a.reason]),
      [[idle.id, `yielded to Slurm job ${pending.idle}`]],
    );
    const { stdout } = await run('git', ['-C', s.w.e.workdir, 'log', '--format=%B']);
    assert.match(stdout, new RegExp(`yield ${idle.id} to Slurm job ${pending.idle} \\(idle \\d+s\\)`));

    const stopsSeen: string[] = [];
    await until(
      'the batch job on the idle replica`s node running',
      async () => {
        if (s.jobs().get(pending.idle)?.[0] === 'RUNNING') return true;
        const r = await s.w.tick();
        for (const a of r.plan?.actions ?? []) if (a.op === 'stop') stopsSeen.push(a.replica);
        return false;
      },
      120_000,
    );
    assert.ok(stopped.includes(idle.id), 'the agent was told to stop the yielded replica');
    assert.not.ok(stopped.includes(busy.id), 'the busy replica was never stopped');
    assert.not.ok(stopsSeen.includes(busy.id));
    assert.equal(
      (await of(s.w, 'busy', 'running')).map((r) => r.id),
      [busy.id],
    );
    assert.equal(await of(s.w, 'idle'), []);
    assert.is(s.jobs().get(pending.busy)?.[0], 'PENDING', 'no GPUs were taken from the busy replica for it');
    assert.is((await s.w.state()).scaling?.['idle']?.count, 0, 'the yielded count stays down');
  });
}

test.run();
