// npm run bench:tick — one reconcile tick on a steady 500-node simulated fleet
// with warm (kept-alive) SSH connections: the whole tick (pull, validate,
// gather, plan, apply of nothing but the router tables, render, no commit)
// should take under 2 s. The agents are canned and in memory: this measures
// llmgw, not the agent's nvidia-smi or disk scan.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { runTick } from '../src/tick/run.js';
import { cannedFleet } from '../test/fixtures/canned-fleet.js';
import { cachedTransports } from '../src/tick/transport-source.js';
import { createSeededRemote, git } from '../src/demo/git-remote.js';
import { createSshTransport } from '../src/gather/ssh-transport.js';
import { openConfigRepo } from '../src/git/config-repo.js';
import { startSimFleet } from '../src/sim/fleet.js';

const NODES = Number(process.env.BENCH_NODES ?? 500);
const TICKS = Number(process.env.BENCH_TICKS ?? 5);
const block = 100 + Math.floor(Math.random() * 150);

const dir = await mkdtemp(join(tmpdir(), 'llmgw-bench-tick-'));
const names = Array.from({ length: NODES }, (_, i) => `gpu${String(i + 1).padStart(4, '0')}`);
const canned = cannedFleet({ nodes: names, routerStartedAt: new Date().toISOString() });
const sim = await startSimFleet({
  dir: join(dir, 'ssh'),
  hosts: [...names, 'rt-1'].map((name, i) => ({ name, address: `127.${block}.${Math.floor(i / 250)}.${(i % 250) + 2}` })),
  handler: (ctx) => canned.handler(ctx),
});

const addr = new Map(sim.hosts.map((h) => [h.name, h]));
const cluster = {
  apiVersion: 'llmgw/v1',
  kind: 'Cluster',
  name: 'bench',
  ssh: { user: sim.user, identityFile: sim.identityFile, knownHosts: sim.knownHostsPath, concurrency: 64, commandTimeout: '30s' },
  fabrics: ['ib-a', 'ib-b'],
  nodes: names.map((n, i) => ({
    name: n,
    host: addr.get(n)!.host,
    port: addr.get(n)!.port,
    fabric: i < NODES / 2 ? 'ib-a' : 'ib-b',
    storage: [{ path: '/models', kind: 'local' }],
  })),
  routers: [{ name: 'rt-1', host: addr.get('rt-1')!.host, port: addr.get('rt-1')!.port }],
  engines: { vllm: { command: ['vllm', 'serve', '{weightsPath}', '--port', '{port}'] } },
  safety: { maxStopFraction: 0.5, minReachableFraction: 0.5 },
};
// About 70% of the GPUs busy: a mix of sizes, including multi-node replicas.
const models = {
  apiVersion: 'llmgw/v1',
  kind: 'Models',
  models: [
    { name: 'big-2n', weights: 'org/big', engine: 'vllm', gpus: 8, nodes: 2, replicas: Math.floor(NODES / 10) },
    { name: 'large', weights: 'org/large', engine: 'vllm', gpus: 8, replicas: Math.floor(NODES / 5) },
    { name: 'medium', weights: 'org/medium', engine: 'vllm', gpus: 4, replicas: Math.floor(NODES / 4) },
    { name: 'small', weights: 'org/small', engine: 'vllm', gpus: 1, replicas: Math.floor(NODES / 2) },
  ],
};
const remote = await createSeededRemote(dir, { 'cluster.yaml': stringify(cluster), 'models.yaml': stringify(models) });
const workdir = join(dir, 'checkout');
const env = { ...process.env, GIT_TERMINAL_PROMPT: '0' };
const repo = await openConfigRepo({ dir: workdir, remote, branch: 'main', env });
const transports = cachedTransports((ssh) => createSshTransport(ssh, { env, keepAlive: true }));
const tick = () => runTick({ repo, transport: (c) => transports.forConfig(c), env, now: () => new Date(), push: true, log: () => undefined });

try {
  const t0 = performance.now();
  const first = await tick();
  const t1 = performance.now();
  const second = await tick(); // sees everything running, commits STATUS.md once
  const t2 = performance.now();
  process.stdout.write(`fleet: ${NODES} nodes, ${sim.hosts.length - NODES} router; started ${first.outcome?.started ?? 0} replicas\n`);
  process.stdout.write(`tick 1 (cold connections, starts everything): ${(t1 - t0).toFixed(0)} ms, commit ${first.commit ? 'yes' : 'no'}\n`);
  process.stdout.write(`tick 2 (warm, records them running): ${(t2 - t1).toFixed(0)} ms, commit ${second.commit ? 'yes' : 'no'}\n`);
  const times: number[] = [];
  let commits = 0;
  let actions = 0;
  for (let i = 0; i < TICKS; i++) {
    const s = performance.now();
    const r = await tick();
    times.push(performance.now() - s);
    if (r.commit) commits++;
    actions += r.plan?.actions.length ?? 0;
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)]!;
  process.stdout.write(
    `steady ticks: ${TICKS}, median ${median.toFixed(0)} ms, min ${times[0]!.toFixed(0)} ms, max ${times[times.length - 1]!.toFixed(0)} ms; ` +
      `actions ${actions}, commits ${commits}, SSH connections opened in all ${sim.connectionCount()}\n`,
  );
  process.stdout.write(`target: < 2000 ms per steady tick and no commit: ${median < 2000 && commits === 0 ? 'met' : 'NOT met'}\n`);
  process.stdout.write(`git log: ${(await git(workdir, ['log', '--oneline'])).split('\n').length} commits\n`);
} finally {
  await transports.close();
  await sim.close();
  await rm(dir, { recursive: true, force: true });
}
