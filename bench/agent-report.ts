// `npm run bench:agent`: how long one `agent report` takes on a node whose
// replicas carry an answer check (docs/protocol.md#the-reference-agent), in the cases that
// matter for the SSH command timeout (60 s by default):
//   passing, re-check not due   the every-tick case: health probes only
//   passing, re-check due       one 32-token completion per replica
//   never answering             every attempt cut at its bound (10 s default)
// Each with N replicas (default 1, 8, 32). Replicas are real `sleep` processes;
// their endpoints are engines on 127.0.0.1 in this process that answer at once
// (or never). nvidia-smi is the fake one.
//
//   node dist/bench/agent-report.js [N ...]

import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apply, stopAllReplicas } from '../src/agent/apply.js';
import type { AgentEnv } from '../src/agent/env.js';
import { report } from '../src/agent/report.js';
import { fakeGpuEnv, writeFakeGpus } from '../src/sim/fake-nvidia-smi.js';
import type { StartRequest } from '../src/types/snapshot.js';

const SIZES = process.argv
  .slice(2)
  .map(Number)
  .filter((n) => n > 0);

async function engine(answers: boolean): Promise<{ url: string; server: Server; sockets: Set<Socket> }> {
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    if (req.url === '/health') return void res.writeHead(200).end();
    req.resume();
    if (!answers) return; // accept and never answer
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"choices":[{"message":{"content":"Ready."}}]}'));
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, sockets };
}

function start(id: string, endpoint: string): StartRequest {
  return {
    replica: id,
    model: 'bench',
    spec: 's',
    weights: 'w',
    weightsPath: '/w',
    gpus: [0],
    port: Number(new URL(endpoint).port),
    endpoint,
    rank: 0,
    peers: ['n1'],
    command: ['sleep', '600'],
    env: {},
    health: '/health',
    startTimeoutSeconds: 3600,
    check: { prompt: 'Reply with the word ready.', expect: 'ready', flags: 'i', timeoutSeconds: 3600 },
  };
}

async function timed(env: AgentEnv, now: Date): Promise<number> {
  const t = performance.now();
  await report({ version: 1, node: 'n1', storage: [], weights: [] }, env, () => now);
  return (performance.now() - t) / 1000;
}

async function run(n: number): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'llmgw-bench-agent-'));
  await writeFakeGpus(
    join(dir, 'gpus.csv'),
    Array.from({ length: 8 }, () => ({ name: 'NVIDIA H100 80GB HBM3' })),
  );
  const env: AgentEnv = {
    PATH: process.env.PATH,
    LLMGW_STATE_DIR: join(dir, 'state'),
    LLMGW_AGENT_SUPERVISOR: 'process',
    ...fakeGpuEnv(join(dir, 'gpus.csv')),
  };
  const good = await engine(true);
  const mute = await engine(false);
  try {
    await apply({ version: 1, node: 'n1', start: Array.from({ length: n }, (_, i) => start(`ok-${i}`, good.url)), stop: [] }, env);
    const t0 = new Date();
    await timed(env, t0); // first: all pass
    const cached = await timed(env, new Date(t0.getTime() + 10_000));
    const due = await timed(env, new Date(t0.getTime() + 31_000));
    await stopAllReplicas(env);
    await apply({ version: 1, node: 'n1', start: Array.from({ length: n }, (_, i) => start(`mute-${i}`, mute.url)), stop: [] }, env);
    const silent = await timed(env, new Date());
    return [`${String(n).padStart(8)}  ${cached.toFixed(2).padStart(18)} s  ${due.toFixed(2).padStart(15)} s  ${silent.toFixed(2).padStart(16)} s`];
  } finally {
    await stopAllReplicas(env);
    for (const e of [good, mute]) {
      for (const s of e.sockets) s.destroy();
      e.server.close();
    }
    await rm(dir, { recursive: true, force: true });
  }
}

const load = spawnSync('cat', ['/proc/loadavg'], { encoding: 'utf8' }).stdout.split(' ')[0];
console.log(`agent report with answer checks (load average ${String(load)})`);
console.log('replicas  passing, not due      passing, due      never answering');
for (const n of SIZES.length > 0 ? SIZES : [1, 8, 32]) for (const line of await run(n)) console.log(line);
