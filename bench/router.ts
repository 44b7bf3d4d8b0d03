// npm run bench:router [-- --phase S] [--rounds N] [--duration S] [--rate N] [--connections N] [--engines N]
//
// The router's cost, measured as a ratio in one run: the same load generator hits
// stub engines directly, then through the router, all on this machine's cores.
// Three processes besides this one (engines, router, load generator), so the
// router's CPU is its own and its RSS can be read from /proc. Each phase is cut
// into --rounds (10) that alternate direct and router, so a neighbour's burst of
// CPU lands on both sides rather than on one; besides the pooled figures, each
// ratio is also given as the median over the round pairs, which one burst cannot move.
//   fixed rate   --rate req/s (default 1000) for --phase s (10) per side: p50/p99 latency
//   saturation   --connections closed-loop clients (64) for --phase s per side: throughput
//   soak         the router at --rate for --duration s (60): RSS sampled each second

import { fork, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';

const BODY = Buffer.from(JSON.stringify({ model: 'bench', messages: [{ role: 'user', content: 'Say hi in five words.' }], max_tokens: 16 }));
const ANSWER = Buffer.from(JSON.stringify({
  id: 'chatcmpl-bench', object: 'chat.completion', created: 1764403200, model: 'bench',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Hi there, nice to meet!' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 },
}));

interface LoadJob { kind: 'rate' | 'saturate'; ports: number[]; seconds: number; rate: number; connections: number }
interface LoadResult { requests: number; errors: number; seconds: number; latencies: Float64Array }

// ---- roles (child processes) ----

async function engines(count: number): Promise<void> {
  const ports: number[] = [];
  for (let i = 0; i < count; i++) {
    const server = http.createServer((req, res) => {
      req.on('data', () => undefined);
      req.on('end', () => {
        res.writeHead(200, ['Content-Type', 'application/json', 'Content-Length', String(ANSWER.length)]);
        res.end(ANSWER);
      });
    });
    server.keepAliveTimeout = 65_000;
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    ports.push((server.address() as { port: number }).port);
  }
  process.send!({ ports });
}

async function router(socket: string): Promise<void> {
  const { startRouter } = await import('../src/router/server.js');
  const r = await startRouter({ listen: { host: '127.0.0.1', port: 0 }, adminSocket: socket });
  process.send!({ port: r.port });
}

function load(): void {
  process.on('message', (job: LoadJob) => void runLoad(job).then((r) => process.send!(r)));
  process.send!({ ready: true });
}

/**
 * One kept-alive client pool per target for the whole run, as a steady client
 * would hold: a fresh pool each round would time connection set-up at every
 * round's start, which no client sending 1,000 requests a second pays.
 */
const agents = new Map<string, http.Agent>();
function agentFor(job: LoadJob): http.Agent {
  const key = job.ports.join(',');
  let agent = agents.get(key);
  if (!agent) agents.set(key, (agent = new http.Agent({ keepAlive: true, maxSockets: Math.max(256, job.connections), noDelay: true } as http.AgentOptions)));
  return agent;
}

async function runLoad(job: LoadJob): Promise<LoadResult> {
  const agent = agentFor(job);
  const latencies = new Float64Array(Math.ceil(job.seconds * (job.kind === 'saturate' ? 40_000 : job.rate * 1.5)));
  let n = 0;
  let errors = 0;
  let next = 0;
  // Raw header arrays skip Node's header bookkeeping, so Host must be given by hand.
  const headersFor = new Map(job.ports.map((p) => [p, ['Host', `127.0.0.1:${p}`, 'Content-Type', 'application/json', 'Content-Length', String(BODY.length)]]));
  /** `t0` is when the request was due: in the open loop its schedule, not when the generator got round to it. */
  function fire(port: number, done: () => void, t0 = performance.now()): void {
    const headers = headersFor.get(port);
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/v1/chat/completions', agent, headers }, (res) => {
      res.on('data', () => undefined);
      res.on('end', () => {
        if (res.statusCode !== 200) errors++;
        if (n < latencies.length) latencies[n++] = performance.now() - t0;
        done();
      });
    });
    req.on('error', () => {
      errors++;
      done();
    });
    req.end(BODY);
  }
  const port = (): number => job.ports[next++ % job.ports.length]!;
  const started = performance.now();
  const deadline = started + job.seconds * 1000;
  await new Promise<void>((resolve) => {
    if (job.kind === 'saturate') {
      let live = job.connections;
      for (let c = 0; c < job.connections; c++) {
        const p = port();
        const loop = (): void => (performance.now() < deadline ? fire(p, loop) : --live === 0 ? resolve() : undefined);
        loop();
      }
      return;
    }
    // Open loop: requests leave on schedule whether or not earlier ones have returned.
    const total = Math.round(job.seconds * job.rate);
    let sent = 0;
    let finished = 0;
    const done = (): void => void (++finished === total && resolve());
    // Latency counts from each request's scheduled time (started + k/rate), so a
    // generator that falls behind — a late timer, a stall — is charged to the
    // requests it delayed instead of vanishing (coordinated omission).
    const tick = (): void => {
      const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * job.rate));
      while (sent < due) {
        fire(port(), done, started + ((sent + 1) * 1000) / job.rate);
        sent++;
      }
      if (sent < total) setTimeout(tick, 1);
    };
    tick();
  });
  const seconds = (performance.now() - started) / 1000;
  return { requests: n, errors, seconds, latencies: latencies.slice(0, n) };
}

// ---- orchestration ----

function start(role: string, ...args: string[]): Promise<{ child: ChildProcess; hello: any }> {
  // LLMGW_BENCH_ROUTER_FLAGS passes node flags to the router process only,
  // e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" or "--trace-gc".
  const flags = process.env['LLMGW_BENCH_ROUTER_FLAGS'];
  const execArgv = role === 'router' && flags ? flags.split(/\s+/).filter(Boolean) : [];
  const child = fork(fileURLToPath(import.meta.url), [role, ...args], { stdio: 'inherit', execArgv, serialization: 'advanced' });
  return new Promise((resolve, reject) => {
    child.once('message', (hello) => resolve({ child, hello }));
    child.once('exit', (code) => reject(new Error(`${role} exited with ${code}`)));
  });
}

function ask(loader: ChildProcess, job: LoadJob): Promise<LoadResult> {
  return new Promise((resolve) => {
    loader.once('message', (r) => resolve(r as LoadResult));
    loader.send(job);
  });
}

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** CPU seconds (user+system) the process has used so far. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** One side of a phase, summed over its rounds. */
interface Row {
  phase: string;
  target: 'direct' | 'router';
  requests: number;
  errors: number;
  seconds: number;
  /** One array per round. */
  latencies: Float64Array[];
  /** Requests per second of each round. */
  roundRps: number[];
  /** CPU seconds used by each process during this side's rounds. */
  cpu: { load: number; engines: number; router: number };
  rss: number;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      phase: { type: 'string', default: '10' },
      rounds: { type: 'string', default: '10' },
      duration: { type: 'string', default: '60' },
      rate: { type: 'string', default: '1000' },
      connections: { type: 'string', default: '64' },
      engines: { type: 'string', default: '2' },
    },
  });
  const soak = Number(values.duration);
  const phase = Math.min(Number(values.phase), soak);
  const rounds = Math.max(1, Number(values.rounds));
  const rate = Number(values.rate);
  const connections = Number(values.connections);
  const dir = mkdtempSync(join(tmpdir(), 'llmgw-bench-'));
  const socket = join(dir, 'admin.sock');
  const eng = await start('engines', values.engines!);
  const rt = await start('router', socket);
  const loader = (await start('load')).child;
  const children = [eng.child, rt.child, loader];
  try {
    const enginePorts = eng.hello.ports as number[];
    const { runRouterClient } = await import('../src/router/client.js');
    const table = { version: 1, models: { bench: enginePorts.map((p, i) => ({ replica: `bench-${i}`, url: `http://127.0.0.1:${p}` })) } };
    const put = await runRouterClient('endpoints', JSON.stringify(table), { LLMGW_ROUTER_SOCKET: socket });
    if (put.code !== 0) throw new Error(put.stderr);
    const routerPid = rt.child.pid!;
    const pids = [loader.pid!, eng.child.pid!, routerPid];
    const targets = { direct: enginePorts, router: [rt.hello.port as number] };
    const emptyRow = (label: string, target: Row['target']): Row =>
      ({ phase: label, target, requests: 0, errors: 0, seconds: 0, latencies: [], roundRps: [], cpu: { load: 0, engines: 0, router: 0 }, rss: 0 });
    const runInto = async (row: Row, job: Omit<LoadJob, 'ports'>): Promise<void> => {
      const before = pids.map(cpuSeconds);
      const r = await ask(loader, { ...job, ports: targets[row.target] });
      const used = pids.map((pid, i) => cpuSeconds(pid) - before[i]!);
      row.requests += r.requests;
      row.errors += r.errors;
      row.seconds += r.seconds;
      row.latencies.push(r.latencies);
      row.roundRps.push(r.requests / r.seconds);
      row.cpu.load += used[0]!;
      row.cpu.engines += used[1]!;
      row.cpu.router += used[2]!;
      row.rss = rssMiB(routerPid);
      if (process.env['LLMGW_BENCH_VERBOSE']) {
        const p = percentiles([r.latencies]);
        process.stderr.write(`    round ${row.phase} ${row.target}: ${r.requests} req, p50 ${p.p50.toFixed(2)} p99 ${p.p99.toFixed(2)} max ${Math.max(...r.latencies).toFixed(1)} ms\n`);
      }
    };
    /** Alternate direct and router rounds; returns [direct, router]. */
    const compare = async (label: string, job: Omit<LoadJob, 'ports' | 'seconds'>): Promise<Row[]> => {
      const sides = [emptyRow(label, 'direct'), emptyRow(label, 'router')];
      for (let i = 0; i < rounds; i++) {
        for (const side of i % 2 ? [...sides].reverse() : sides) await runInto(side, { ...job, seconds: phase / rounds });
      }
      for (const s of sides) process.stderr.write(`  ${label} ${s.target}: ${s.requests} requests, ${(s.requests / s.seconds).toFixed(0)} req/s\n`);
      return sides;
    };
    process.stderr.write(`router bench: ${enginePorts.length} stub engines, rate ${rate}/s, ${connections} connections, ${phase}s per side in ${rounds} rounds, soak ${soak}s\n`);
    // Warm both paths (JIT, kept-alive connections) before anything is measured.
    for (const target of ['direct', 'router'] as const) await runInto(emptyRow('warm-up', target), { kind: 'saturate', seconds: 2, rate, connections });
    const rows = [
      ...(await compare(`fixed ${rate} req/s`, { kind: 'rate', rate, connections })),
      ...(await compare(`saturation ${connections} conns`, { kind: 'saturate', rate, connections })),
    ];
    const samples: number[] = [];
    const sampler = setInterval(() => samples.push(rssMiB(routerPid)), 1000);
    const soakRow = emptyRow(`soak ${rate} req/s`, 'router');
    await runInto(soakRow, { kind: 'rate', seconds: soak, rate, connections });
    clearInterval(sampler);
    report([...rows, soakRow], samples, rate);
  } finally {
    // Disconnecting lets each child exit by itself (so a --cpu-prof profile gets written).
    for (const c of children) if (c.connected) c.disconnect();
    rmSync(dir, { recursive: true, force: true });
  }
}

function percentiles(parts: Float64Array[]): { p50: number; p99: number } {
  const all = new Float64Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  all.sort();
  const q = (x: number): number => (all.length ? all[Math.min(all.length - 1, Math.floor(x * all.length))]! : NaN);
  return { p50: q(0.5), p99: q(0.99) };
}

function report(rows: Row[], samples: number[], rate: number): void {
  const f = (x: number, d = 2): string => (Number.isFinite(x) ? x.toFixed(d) : '-');
  const lines = [['phase', 'target', 'requests', 'errors', 'p50 ms', 'p99 ms', 'req/s', 'router RSS MiB', 'CPU us/req: load', 'engines', 'router']];
  const stats = rows.map((r) => ({ ...percentiles(r.latencies), rps: r.requests / r.seconds }));
  rows.forEach((r, i) => {
    const us = (cpu: number): string => f((cpu * 1e6) / Math.max(1, r.requests), 0);
    const s = stats[i]!;
    lines.push([r.phase, r.target, String(r.requests), String(r.errors), f(s.p50), f(s.p99), f(s.rps, 0), f(r.rss, 1), us(r.cpu.load), us(r.cpu.engines), r.target === 'router' ? us(r.cpu.router) : '-']);
  });
  const widths = lines[0]!.map((_, i) => Math.max(...lines.map((l) => l[i]!.length)));
  for (const l of lines) console.log(l.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  '));
  const [fd, fr, sd, sr] = stats;
  const median = (xs: number[]): number => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
  };
  const pooledAdded = fr!.p99 - fd!.p99;
  const pooledShare = sr!.rps / sd!.rps;
  const pairs = rows[0]!.latencies.map((_, i) => i);
  const pairedAdded = median(pairs.map((i) => percentiles([rows[1]!.latencies[i]!]).p99 - percentiles([rows[0]!.latencies[i]!]).p99));
  const pairedShare = median(pairs.map((i) => rows[3]!.roundRps[i]! / rows[2]!.roundRps[i]!));
  const quarter = Math.max(1, Math.floor(samples.length / 4));
  const early = median(samples.slice(0, quarter));
  const late = median(samples.slice(-quarter));
  const steady = late <= early * 1.1 + 4;
  console.log('');
  const verdict = (pooled: boolean, paired: boolean): string => (pooled ? 'PASS' : paired ? 'PASS on the paired median' : 'MISS');
  console.log(
    `p99 added by the router at ${rate} req/s: pooled ${f(pooledAdded)} ms, median of ${pairs.length} round pairs ${f(pairedAdded)} ms ` +
      `(p50 added ${f(fr!.p50 - fd!.p50)} ms; target p99 < 2 ms) ${verdict(pooledAdded < 2, pairedAdded < 2)}`,
  );
  console.log(
    `saturation throughput through the router: pooled ${f(pooledShare * 100, 0)}% of direct, median of ${pairs.length} round pairs ${f(pairedShare * 100, 0)}% ` +
      `(target >= 50%) ${verdict(pooledShare >= 0.5, pairedShare >= 0.5)}`,
  );
  console.log(
    `router RSS over the ${samples.length} s soak: first quarter ${f(early, 1)} MiB, last quarter ${f(late, 1)} MiB, peak ${f(Math.max(...samples), 1)} MiB ` +
      `(steady = last <= first x 1.1 + 4 MiB) ${steady ? 'PASS' : 'MISS'}`,
  );
  const errors = rows.reduce((n, r) => n + r.errors, 0);
  if (errors) console.log(`errors: ${errors} requests failed`);
}

const role = process.argv[2];
if (role) process.on('disconnect', () => process.exit(0));
if (role === 'engines') void engines(Number(process.argv[3]));
else if (role === 'router') void router(process.argv[3]!);
else if (role === 'load') load();
else await main();
