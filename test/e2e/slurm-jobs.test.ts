// Jobs mode end to end against a real Slurm 22.05 on loopback (docs/slurm.md#jobs-mode-mode-jobs):
// the reconciler's own tick (by hand, no git) gathers the nodes' agents, the
// router and Slurm over its SSH transport, plans, and submits each replica as
// a batch job on the Slurm host; the node bundle inside the job records the
// replica and runs the stub engine, which answers through the real router.
//
// Checked: squeue lists the jobs under llmgw's names with the GPU counts the
// plan chose; the script reached sbatch on stdin and a model argument holding
// $(…), backticks and ${…} arrived at the engine byte for byte while nothing
// it names ran; `agent report` lists each job's replica with the GPUs Slurm
// gave it and the job id; a person's scancel is a failed replica replaced at
// the next tick; scaling down drains, then `scancel --full --signal=TERM`,
// the agent's stop, `scancel`. Without Slurm installed this skips, saying so.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runAgent } from '../../src/agent/main.js';
import type { AgentEnv } from '../../src/agent/env.js';
import { createSshTransport } from '../../src/gather/ssh-transport.js';
import { runRouterClient } from '../../src/router/client.js';
import { startRouter } from '../../src/router/server.js';
import { fakeGpuEnv, writeFakeGpus } from '../../src/sim/fake-nvidia-smi.js';
import { startSimFleet, type SimFleet } from '../../src/sim/fleet.js';
import { routeCommands } from '../../src/sim/route-commands.js';
import { parseSqueue, type SqueueJob } from '../../src/slurm/squeue.js';
import { runTick, type ByHandRun } from '../../src/tick/run.js';
import type { Config } from '../../src/types/config.js';
import type { Plan } from '../../src/types/plan.js';
import type { AgentReport } from '../../src/types/snapshot.js';
import type { Transport } from '../../src/types/transport.js';
import { runOnSlurm } from '../slurm/slurm-ssh.js';
import { model, nodeConfig, testCluster } from '../fixtures/index.js';
import { simSshConfig, tempDir } from '../gather/sim-helpers.js';
import { slurmAvailable, startSlurmCluster, waitFor, type SlurmCluster } from '../slurm/cluster.js';

// dist/test/e2e/ -> dist/llmgw-node.mjs and dist/src/sim/stub-engine.js
const BUNDLE = fileURLToPath(new URL('../../llmgw-node.mjs', import.meta.url));
const STUB = fileURLToPath(new URL('../../src/sim/stub-engine.js', import.meta.url));
const NODES = ['gpu-a01', 'gpu-a02'];
const ROUTER_COMMAND = 'llmgw router';

interface World {
  cluster: SlurmCluster;
  sim: SimFleet;
  transport: Transport;
  router: Awaited<ReturnType<typeof startRouter>>;
  config: Config;
  /** Every command the Slurm host ran, with its stdin. */
  slurmCalls: { command: string; stdin: string }[];
  agentEnv: (node: string) => AgentEnv;
  checkout: string;
  /** The text a shell would expand: the model alpha's answer. */
  answer: string;
  pwned: string[];
}

async function startWorld(root: string): Promise<World> {
  const cluster = await startSlurmCluster(NODES.map((name) => ({ name, gpus: 4 })));
  const envs = new Map<string, AgentEnv>();
  for (const n of NODES) {
    const state = join(root, 'agents', n);
    mkdirSync(state, { recursive: true });
    const fixture = join(state, 'gpus.csv');
    await writeFakeGpus(
      fixture,
      [0, 1, 2, 3].map(() => ({ name: 'NVIDIA H100 80GB HBM3', memoryMiB: 81559 })),
    );
    envs.set(n, { PATH: process.env.PATH, LLMGW_STATE_DIR: state, LLMGW_AGENT_SUPERVISOR: 'process', ...fakeGpuEnv(fixture) });
  }
  const agentEnv = (node: string): AgentEnv => envs.get(node) ?? {};
  // agent.command on every node: the node bundle with that node's state directory (Slurm's nodes share this machine).
  const wrapper = join(root, 'llmgw-agent');
  writeFileSync(wrapper, `#!/bin/sh\nexec env LLMGW_STATE_DIR="${root}/agents/$SLURMD_NODENAME" "${process.execPath}" "${BUNDLE}" agent "$@"\n`, {
    mode: 0o755,
  });
  const slurmCalls: World['slurmCalls'] = [];
  const router = await startRouter({ listen: { host: '127.0.0.1', port: 0 }, adminSocket: join(root, 'router.sock') });
  const nodeCommands = routeCommands({
    agentCommand: wrapper,
    agentEnv,
    routerCommand: ROUTER_COMMAND,
    router: (_name, sub, stdin) => runRouterClient(sub, stdin, { LLMGW_ROUTER_SOCKET: join(root, 'router.sock') }),
  });
  const block = 100 + Math.floor(Math.random() * 150);
  const sim = await startSimFleet({
    dir: join(root, 'ssh'),
    hosts: ['slurm-ctl', ...NODES, 'rt-1'].map((name, i) => ({ name, address: `127.${block}.0.${i + 2}` })),
    handler: async (ctx) => {
      if (ctx.host !== 'slurm-ctl') return nodeCommands(ctx);
      slurmCalls.push({ command: ctx.command, stdin: ctx.stdin });
      return runOnSlurm(cluster, ctx.command, ctx.stdin);
    },
  });
  const ssh = simSshConfig(sim, { connectTimeoutMs: 10_000, commandTimeoutMs: 60_000 });
  const hosts = new Map(sim.hosts.map((h) => [h.name, h]));
  const host = (name: string) => hosts.get(name) ?? { name, host: '', port: 0 };
  const pwned = [join(root, 'pwned-1'), join(root, 'pwned-2')];
  const answer = `$(touch ${pwned[0]}) \`touch ${pwned[1]}\` \${HOME} 'quoted' "double"`;
  const config: Config = {
    cluster: testCluster({
      ssh,
      agent: { command: wrapper },
      router: { command: ROUTER_COMMAND },
      nodes: NODES.map((n) => nodeConfig(n, { host: host(n).host, port: host(n).port })),
      routers: [{ name: 'rt-1', host: host('rt-1').host, port: host('rt-1').port }],
      engines: {
        stub: {
          name: 'stub',
          command: [process.execPath, STUB, '--host', '{host}', '--port', '{port}', '--model', '{model}'],
          basePort: 20_000 + Math.floor(Math.random() * 20_000),
          health: '/health',
          startTimeoutMs: 120_000,
        },
      },
      safety: { maxStopFraction: 1, minReachableFraction: 0.5 },
      slurm: { host: host('slurm-ctl').host, port: host('slurm-ctl').port, partition: 'gpu', mode: 'jobs', yield: false, names: {} },
    }),
    models: [
      model('alpha', { engine: 'stub', weights: 'alpha', gpus: 1, args: ['--answer', answer], index: 0, drainTimeoutMs: 60_000, stopGraceMs: 10_000 }),
      model('beta', { engine: 'stub', weights: 'beta', gpus: 2, index: 1, drainTimeoutMs: 60_000, stopGraceMs: 10_000 }),
    ],
  };
  const checkout = join(root, 'checkout');
  mkdirSync(checkout);
  return { cluster, sim, transport: createSshTransport(ssh), router, config, slurmCalls, agentEnv, checkout, answer, pwned };
}

/** One tick of `llmgw apply --yes` in the checkout: observe, plan, apply, write. */
async function tick(w: World, config = w.config): Promise<{ plan: Plan; run: ByHandRun }> {
  const shown: { plan: Plan | null } = { plan: null };
  const run = await runTick({
    kind: 'by-hand',
    dir: w.checkout,
    config,
    transport: w.transport,
    repo: null,
    force: false,
    now: () => new Date(),
    warn: () => undefined,
    show: (p) => (shown.plan = p.plan),
    confirm: () => Promise.resolve('yes' as const),
  });
  if (shown.plan === null) throw new Error('the tick showed no plan');
  return { plan: shown.plan, run };
}

function squeue(w: World): SqueueJob[] {
  return parseSqueue(w.cluster.run('squeue', ['--json']));
}

const live = (j: SqueueJob) => j.state === 'running' || j.state === 'pending' || j.state === 'configuring';

async function report(w: World, node: string): Promise<AgentReport> {
  const out = await runAgent('report', JSON.stringify({ version: 1, node, storage: [], weights: [] }), w.agentEnv(node));
  return JSON.parse(out.stdout) as AgentReport;
}

async function replicasOf(w: World, model: string): Promise<{ node: string; id: string; state: string; gpus: number[]; slurmJob?: string }[]> {
  const out = [];
  for (const n of NODES)
    for (const r of (await report(w, n)).replicas) if (r.model === model) out.push({ node: n, id: r.id, state: r.state, gpus: r.gpus, slurmJob: r.slurmJob });
  return out;
}

/** Ticks until `done` holds (each tick is a whole observe-plan-apply); fails after `max` ticks. */
async function tickUntil(w: World, what: string, done: () => Promise<boolean>, max = 8, config = w.config): Promise<Plan[]> {
  const plans: Plan[] = [];
  for (let i = 0; i < max; i++) {
    plans.push((await tick(w, config)).plan);
    if (await done()) return plans;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`still not ${what} after ${max} ticks`);
}

/** A chat through the router; status 0 when it did not answer in time (a model with no route yet is held by the router, not refused). */
async function chat(w: World, modelName: string): Promise<{ status: number; content: string }> {
  try {
    const res = await fetch(`http://127.0.0.1:${w.router.port}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: modelName, messages: [{ role: 'user', content: 'hello' }] }),
      signal: AbortSignal.timeout(5_000),
    });
    const body = (await res.json().catch(() => ({}))) as { choices?: { message?: { content?: string } }[] };
    return { status: res.status, content: body.choices?.[0]?.message?.content ?? '' };
  } catch {
    return { status: 0, content: '' };
  }
}

if (!slurmAvailable()) {
  console.log('SKIP test/e2e/slurm-jobs: Slurm is not installed (Debian packages slurmctld, slurmd, slurm-client, munge)');
} else {
  const tmp = tempDir('slurm-jobs');
  let world: World | null = null;
  const w = () => world as World;

  test.before(async () => {
    // The jobs run as this user and must reach the bundle, the wrapper and the state directories.
    chmodSync(tmp.dir, 0o755);
    world = await startWorld(tmp.dir);
  });

  test.after(async () => {
    if (world) {
      await world.transport.close();
      await world.sim.close();
      await world.router.close();
      await world.cluster.stop();
    }
    tmp.remove();
  });

  test('two models become Slurm jobs named llmgw/<replica>/<rank> with the GPU counts the plan chose; the script went to sbatch on stdin', async () => {
    const first = await tick(w());
    assert.equal((first.plan.slurmJobs ?? []).map((j) => `${j.op} ${j.name} gpu:${j.gpus}`).sort(), [
      'submit llmgw/alpha-0/0 gpu:1',
      'submit llmgw/beta-0/0 gpu:2',
    ]);
    const sbatches = w().slurmCalls.filter((c) => c.command === 'sbatch --parsable');
    assert.is(sbatches.length, 2, 'one sbatch per rank, the command line fixed');
    assert.ok(
      w().slurmCalls.every((c) => !c.command.includes('touch')),
      'no repo value on any command line',
    );
    assert.ok(
      sbatches.some((c) => c.stdin.includes(JSON.stringify(w().answer).slice(1, -1))),
      'the model argument is in the script, as JSON data',
    );
    const jobs = await waitFor('both jobs to run', () => {
      const mine = squeue(w()).filter((j) => j.name.startsWith('llmgw/') && j.state === 'running');
      return mine.length === 2 ? mine : undefined;
    });
    assert.equal(jobs.map((j) => [j.name, j.nodes.reduce((n, x) => n + x.gpus, 0)]).sort(), [
      ['llmgw/alpha-0/0', 1],
      ['llmgw/beta-0/0', 2],
    ]);
    const placed = first.plan.actions.map((a) => [a.replica, a.placement[0]?.node]).sort();
    assert.equal(jobs.map((j) => [j.name.split('/')[1], j.nodes[0]?.name]).sort(), placed, 'each job runs on the node the plan chose');
  });

  test('the agent inside each job reports its replica with the GPUs Slurm gave and the job id; the engines answer through the real router, the argument verbatim, nothing it names ran', async () => {
    await tickUntil(w(), 'both replicas running and routed', async () => {
      const states = [...(await replicasOf(w(), 'alpha')), ...(await replicasOf(w(), 'beta'))].map((r) => r.state);
      if (states.length !== 2 || states.some((s) => s !== 'running')) return false;
      return (await chat(w(), 'alpha')).status === 200 && (await chat(w(), 'beta')).status === 200;
    });
    const jobs = squeue(w());
    for (const m of ['alpha', 'beta']) {
      const [r] = await replicasOf(w(), m);
      const job = jobs.find((j) => j.name === `llmgw/${r!.id}/0` && j.state === 'running');
      assert.ok(job, `a running job for ${r!.id}`);
      assert.is(r!.slurmJob, job.id);
      assert.equal(r!.gpus, job.nodes.find((x) => x.name === r!.node)?.indices, `${m}: the GPUs Slurm chose`);
    }
    const answered = await chat(w(), 'alpha');
    assert.is(answered.content, w().answer, 'the argument reached the engine byte for byte');
    for (const p of w().pwned) assert.not.ok(existsSync(p), `${p} was not created: no shell expanded the argument`);
  });

  test('a job cancelled by a person is a failed replica, replaced at the next tick by a new job', async () => {
    const [before] = await replicasOf(w(), 'alpha');
    const old = before!.slurmJob!;
    w().cluster.run('scancel', [old]);
    await waitFor('the cancelled job to end', () => (squeue(w()).some((j) => j.id === old && live(j)) ? undefined : true));
    const plans = await tickUntil(w(), 'alpha replaced', async () => {
      const now = await replicasOf(w(), 'alpha');
      return now.length === 1 && now[0]!.id !== before!.id && now[0]!.state === 'running' && (await chat(w(), 'alpha')).status === 200;
    });
    const starts = plans.flatMap((p) => p.actions.filter((a) => a.op === 'start' && a.model === 'alpha'));
    assert.is(starts.length, 1, 'one replacement');
    assert.ok(
      plans.some((p) => p.actions.some((a) => a.op === 'stop' && a.replica === before!.id && a.reason.includes('failed'))),
      'the old replica stopped as failed',
    );
    const [now] = await replicasOf(w(), 'alpha');
    assert.ok(
      squeue(w()).some((j) => j.id === now!.slurmJob && j.name === `llmgw/${now!.id}/0` && j.state === 'running'),
      'the replacement is a new running job',
    );
    assert.is((await chat(w(), 'alpha')).content, w().answer);
  });

  test('scaling down drains, then scancel --full --signal=TERM, the agent`s stop and scancel end the job and the record', async () => {
    const [beta] = await replicasOf(w(), 'beta');
    const id = beta!.slurmJob!;
    const down: Config = { ...w().config, models: w().config.models.map((m) => (m.name === 'beta' ? { ...m, replicas: 0 } : m)) };
    const from = w().slurmCalls.length;
    const plans = await tickUntil(w(), 'beta gone', async () => (await replicasOf(w(), 'beta')).length === 0, 8, down);
    assert.ok(
      plans.some((p) => p.actions.some((a) => a.op === 'stop' && a.replica === beta!.id && a.phase === 'drain')),
      'drained first',
    );
    assert.ok(
      plans.some((p) => (p.slurmJobs ?? []).some((j) => j.op === 'cancel' && j.name === `llmgw/${beta!.id}/0` && j.id === id)),
      'the plan lists the cancel by name',
    );
    const cancels = w()
      .slurmCalls.slice(from)
      .map((c) => c.command)
      .filter((c) => c.startsWith('scancel'));
    assert.equal(cancels, [`scancel --full --signal=TERM ${id}`, `scancel ${id}`]);
    await waitFor('the job to end', () => (squeue(w()).some((j) => j.id === id && live(j)) ? undefined : true));
    assert.is((await chat(w(), 'alpha')).status, 200, 'the other model still answers');
  });
}

test.run();
