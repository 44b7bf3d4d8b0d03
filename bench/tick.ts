// npm run bench:tick — reconcile ticks on a steady simulated fleet with warm
// (kept-alive) SSH connections: the whole tick (pull, validate, gather, plan,
// apply of nothing but the router tables, render, no commit). The agents are
// canned and in memory: this measures llmgw, not the agent's nvidia-smi or
// disk scan. Targets: a steady tick of 500 nodes under 2 s, of 10,000 nodes
// under 10 s (docs/testing.md#benchmarks-at-scale), with no commit.
//
// Up to 1,000 nodes the simulated servers run in this process; past that in
// child processes of 2,500 hosts each (bench/tick-fleet.ts), sharing one client
// key: 10,000 servers' sockets beside 10,000 kept connections would not fit one
// process's descriptors.
//
//   BENCH_NODES=500,10000 (default) BENCH_TICKS=5 npm run bench:tick

import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { runTick } from '../src/tick/run.js';
import { cannedFleet } from '../test/fixtures/canned-fleet.js';
import { cachedTransports } from '../src/tick/transport-source.js';
import { createSeededRemote, git } from '../src/demo/git-remote.js';
import { createSshTransport } from '../src/gather/ssh-transport.js';
import { openConfigRepo } from '../src/git/config-repo.js';
import { startSimFleet } from '../src/sim/fleet.js';
import { generateSimKey } from '../src/sim/keys.js';
import type { TickFleetReady, TickFleetRequest } from './tick-fleet.js';

const SIZES = (process.env.BENCH_NODES ?? '500,10000').split(',').map(Number);
const TICKS = Number(process.env.BENCH_TICKS ?? 5);
const IN_PROCESS_MAX = 1000;
const PER_CHILD = 2500;
const TARGET_MS = (nodes: number) => (nodes <= 500 ? 2000 : 10_000);

interface Served {
  hosts: { name: string; host: string; port: number }[];
  user: string;
  identityFile: string;
  knownHostsPath: string;
  connections(): Promise<number>;
  close(): Promise<void>;
}

async function inProcess(dir: string, hosts: { name: string; address: string }[], names: string[]): Promise<Served> {
  const canned = cannedFleet({ nodes: names, routerStartedAt: new Date().toISOString() });
  const sim = await startSimFleet({ dir, hosts, handler: (ctx) => canned.handler(ctx) });
  return { ...sim, connections: () => Promise.resolve(sim.connectionCount()), close: () => sim.close() };
}

/** One child serving some of the hosts: its replies read line by line. */
async function child(req: TickFleetRequest): Promise<{ ready: TickFleetReady; count(): Promise<number>; close(): Promise<void> }> {
  const script = fileURLToPath(new URL('./tick-fleet.js', import.meta.url));
  const proc = spawn(process.execPath, [script], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: proc.stdout })[Symbol.asyncIterator]();
  const next = async (): Promise<string> => {
    const r = await lines.next();
    if (r.done) throw new Error('bench: a simulated fleet process ended early');
    return r.value;
  };
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  proc.stdin.write(JSON.stringify(req) + '\n');
  const ready = JSON.parse(await next()) as TickFleetReady;
  return {
    ready,
    count: async () => {
      proc.stdin.write('count\n');
      return (JSON.parse(await next()) as { count: number }).count;
    },
    close: async () => {
      proc.stdin.end();
      await exited;
    },
  };
}

async function inChildren(dir: string, hosts: { name: string; address: string }[], names: string[]): Promise<Served> {
  const clientKey = generateSimKey('llmgw-bench-client');
  await mkdir(dir, { recursive: true });
  const identityFile = join(dir, 'id_ed25519');
  await writeFile(identityFile, clientKey.private, { mode: 0o600 });
  const routerStartedAt = new Date().toISOString();
  const nodes = new Set(names);
  const chunks: { name: string; address: string }[][] = [];
  for (let i = 0; i < hosts.length; i += PER_CHILD) chunks.push(hosts.slice(i, i + PER_CHILD));
  const children = await Promise.all(
    chunks.map((chunk, k) =>
      child({ hosts: chunk, nodes: chunk.map((h) => h.name).filter((n) => nodes.has(n)), clientKey, dir: join(dir, `part-${k}`), routerStartedAt }),
    ),
  );
  const knownHostsPath = join(dir, 'known_hosts');
  await writeFile(knownHostsPath, children.map((c) => c.ready.knownHosts).join(''));
  return {
    hosts: children.flatMap((c) => c.ready.hosts),
    user: userInfo().username,
    identityFile,
    knownHostsPath,
    connections: async () => (await Promise.all(children.map((c) => c.count()))).reduce((a, b) => a + b, 0),
    close: async () => {
      await Promise.all(children.map((c) => c.close()));
    },
  };
}

async function bench(nodes: number): Promise<boolean> {
  const block = 100 + Math.floor(Math.random() * 150);
  const dir = await mkdtemp(join(tmpdir(), 'llmgw-bench-tick-'));
  const width = String(nodes).length;
  const names = Array.from({ length: nodes }, (_, i) => `gpu${String(i + 1).padStart(Math.max(4, width), '0')}`);
  const specs = [...names, 'rt-1'].map((name, i) => ({ name, address: `127.${block}.${Math.floor(i / 250)}.${(i % 250) + 2}` }));
  const sim = await (nodes <= IN_PROCESS_MAX ? inProcess : inChildren)(join(dir, 'ssh'), specs, names);
  const addr = new Map(sim.hosts.map((h) => [h.name, h]));
  const cluster = {
    apiVersion: 'llmgw/v1',
    kind: 'Cluster',
    name: 'bench',
    // Every host's connection kept between ticks (ssh.keepOpen ≥ the hosts), as a steady tick at this size is run.
    ssh: {
      user: sim.user,
      identityFile: sim.identityFile,
      knownHosts: sim.knownHostsPath,
      concurrency: 64,
      commandTimeout: '30s',
      keepOpen: Math.max(4096, nodes + 1),
    },
    fabrics: ['ib-a', 'ib-b'],
    nodes: names.map((n, i) => ({
      name: n,
      host: addr.get(n)!.host,
      port: addr.get(n)!.port,
      fabric: i < nodes / 2 ? 'ib-a' : 'ib-b',
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
      { name: 'big-2n', weights: 'org/big', engine: 'vllm', gpus: 8, nodes: 2, replicas: Math.floor(nodes / 10) },
      { name: 'large', weights: 'org/large', engine: 'vllm', gpus: 8, replicas: Math.floor(nodes / 5) },
      { name: 'medium', weights: 'org/medium', engine: 'vllm', gpus: 4, replicas: Math.floor(nodes / 4) },
      { name: 'small', weights: 'org/small', engine: 'vllm', gpus: 1, replicas: Math.floor(nodes / 2) },
    ],
  };
  const remote = await createSeededRemote(dir, { 'cluster.yaml': stringify(cluster), 'models.yaml': stringify(models) });
  const workdir = join(dir, 'checkout');
  const env = { ...process.env, GIT_TERMINAL_PROMPT: '0' };
  const repo = await openConfigRepo({ dir: workdir, remote, branch: 'main', env });
  const transports = cachedTransports((ssh) => createSshTransport(ssh, { env, keepAlive: true }));
  const tick = () => runTick({ repo, transport: (c) => transports.forConfig(c), env, now: () => new Date(), push: true, log: () => undefined });
  const out = (line: string) => process.stdout.write(`[${nodes.toLocaleString('en-US')}] ${line}\n`);
  try {
    const t0 = performance.now();
    const first = await tick();
    const t1 = performance.now();
    const second = await tick(); // sees everything running, commits STATUS.md once
    const t2 = performance.now();
    out(
      `fleet: ${nodes} nodes, 1 router, servers ${nodes <= IN_PROCESS_MAX ? 'in this process' : `in ${Math.ceil((nodes + 1) / PER_CHILD)} processes`}; started ${first.outcome?.started ?? 0} replicas`,
    );
    out(`tick 1 (cold connections, starts everything): ${(t1 - t0).toFixed(0)} ms, commit ${first.commit ? 'yes' : 'no'}`);
    out(`tick 2 (warm, records them running): ${(t2 - t1).toFixed(0)} ms, commit ${second.commit ? 'yes' : 'no'}`);
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
    out(
      `steady ticks: ${TICKS}, median ${median.toFixed(0)} ms, min ${times[0]!.toFixed(0)} ms, max ${times[times.length - 1]!.toFixed(0)} ms; ` +
        `actions ${actions}, commits ${commits}, SSH connections opened in all ${await sim.connections()}`,
    );
    const met = median < TARGET_MS(nodes) && commits === 0;
    out(`target: < ${TARGET_MS(nodes)} ms per steady tick and no commit: ${met ? 'ok' : 'MISSED'}`);
    out(`git log: ${(await git(workdir, ['log', '--oneline'])).split('\n').length} commits`);
    return met;
  } finally {
    await transports.close();
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  }
}

const verdicts: string[] = [];
for (const nodes of SIZES) verdicts.push(`${nodes.toLocaleString('en-US')} nodes ${(await bench(nodes)) ? 'ok' : 'MISSED'}`);
process.stdout.write(`targets (steady tick, no commit): ${verdicts.join('; ')}\n`);
