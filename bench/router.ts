// npm run bench:router [-- --phase S] [--duration S] [--rate N] [--connections N] [--engines N]
//
// The router's cost, measured as a ratio in one run: the same load generator hits
// stub engines directly, then through the router, all on this machine's cores.
// Three processes besides this one (engines, router, load generator), so the
// router's CPU is its own and its RSS can be read from /proc.
//   fixed rate   --rate req/s (default 1000) for --phase s (10): p50/p99 latency
//   saturation   --connections closed-loop clients (64) for --phase s: throughput
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
interface LoadResult { requests: number; errors: number; p50: number; p99: number; seconds: number }

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

async function runLoad(job: LoadJob): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: Math.max(256, job.connections), noDelay: true } as http.AgentOptions);
  const latencies = new Float64Array(Math.ceil(job.seconds * (job.kind === 'saturate' ? 40_000 : job.rate * 1.5)));
  let n = 0;
  let errors = 0;
  let next = 0;
  // Raw header arrays skip Node's header bookkeeping, so Host must be given by hand.
  const headersFor = new Map(job.ports.map((p) => [p, ['Host', `127.0.0.1:${p}`, 'Content-Type', 'application/json', 'Content-Length', String(BODY.length)]]));
  function fire(port: number, done: () => void): void {
    const t0 = performance.now();
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
    const tick = (): void => {
      const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * job.rate));
      while (sent < due) {
        sent++;
        fire(port(), done);
      }
      if (sent < total) setTimeout(tick, 1);
    };
    tick();
  });
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  const sorted = latencies.subarray(0, n).sort();
  const at = (q: number): number => (n ? sorted[Math.min(n - 1, Math.floor(q * n))]! : NaN);
  return { requests: n, errors, p50: at(0.5), p99: at(0.99), seconds };
}

// ---- orchestration ----

function start(role: string, ...args: string[]): Promise<{ child: ChildProcess; hello: any }> {
  // LLMGW_BENCH_PROFILE=DIR writes a CPU profile of the router process there.
  const profile = process.env['LLMGW_BENCH_PROFILE'];
  const execArgv = role === 'router' && profile ? ['--cpu-prof', '--cpu-prof-dir', profile] : [];
  const child = fork(fileURLToPath(import.meta.url), [role, ...args], { stdio: 'inherit', execArgv });
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

interface Row { phase: string; target: string; r: LoadResult; rss: number; cpu: { load: number; engines: number; router: number } }

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      phase: { type: 'string', default: '10' },
      duration: { type: 'string', default: '60' },
      rate: { type: 'string', default: '1000' },
      connections: { type: 'string', default: '64' },
      engines: { type: 'string', default: '2' },
    },
  });
  const soak = Number(values.duration);
  const phase = Math.min(Number(values.phase), soak);
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
    const targets = { direct: enginePorts, router: [rt.hello.port as number] };
    const rows: Row[] = [];
    const run = async (label: string, target: 'direct' | 'router', job: Omit<LoadJob, 'ports'>): Promise<Row> => {
      const pids = [loader.pid!, eng.child.pid!, routerPid];
      const before = pids.map(cpuSeconds);
      const r = await ask(loader, { ...job, ports: targets[target] });
      const [load, engines, router] = pids.map((pid, i) => ((cpuSeconds(pid) - before[i]!) * 1e6) / Math.max(1, r.requests));
      const row = { phase: label, target, r, rss: rssMiB(routerPid), cpu: { load: load!, engines: engines!, router: router! } };
      process.stderr.write(`  ${label} ${target}: ${r.requests} requests, ${(r.requests / r.seconds).toFixed(0)} req/s\n`);
      return row;
    };
    process.stderr.write(`router bench: ${enginePorts.length} stub engines, rate ${rate}/s, ${connections} connections, phases ${phase}s, soak ${soak}s\n`);
    // Warm both paths (JIT, kept-alive connections) before anything is measured.
    await run('warm-up', 'direct', { kind: 'saturate', seconds: 2, rate, connections });
    await run('warm-up', 'router', { kind: 'saturate', seconds: 2, rate, connections });
    const fixed = `fixed ${rate} req/s`;
    const sat = `saturation ${connections} conns`;
    rows.push(await run(fixed, 'direct', { kind: 'rate', seconds: phase, rate, connections }));
    rows.push(await run(fixed, 'router', { kind: 'rate', seconds: phase, rate, connections }));
    rows.push(await run(sat, 'direct', { kind: 'saturate', seconds: phase, rate, connections }));
    rows.push(await run(sat, 'router', { kind: 'saturate', seconds: phase, rate, connections }));
    const samples: number[] = [];
    const sampler = setInterval(() => samples.push(rssMiB(routerPid)), 1000);
    rows.push(await run(`soak ${rate} req/s`, 'router', { kind: 'rate', seconds: soak, rate, connections }));
    clearInterval(sampler);
    report(rows, samples, rate);
  } finally {
    // Disconnecting lets each child exit by itself (so a --cpu-prof in NODE_OPTIONS gets written).
    for (const c of children) if (c.connected) c.disconnect();
    rmSync(dir, { recursive: true, force: true });
  }
}

function report(rows: Row[], samples: number[], rate: number): void {
  const f = (x: number, d = 2): string => (Number.isFinite(x) ? x.toFixed(d) : '-');
  const lines = [['phase', 'target', 'requests', 'errors', 'p50 ms', 'p99 ms', 'req/s', 'router RSS MiB', 'CPU us/req: load', 'engines', 'router']];
  for (const { phase, target, r, rss, cpu } of rows) {
    const us = (x: number): string => f(x, 0);
    lines.push([phase, target, String(r.requests), String(r.errors), f(r.p50), f(r.p99), f(r.requests / r.seconds, 0), f(rss, 1), us(cpu.load), us(cpu.engines), target === 'router' ? us(cpu.router) : '-']);
  }
  const widths = lines[0]!.map((_, i) => Math.max(...lines.map((l) => l[i]!.length)));
  for (const l of lines) console.log(l.map((c, i) => (i < 2 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  '));
  const [fd, fr, sd, sr] = rows;
  const added = fr!.r.p99 - fd!.r.p99;
  const share = sr!.r.requests / sr!.r.seconds / (sd!.r.requests / sd!.r.seconds);
  const quarter = Math.max(1, Math.floor(samples.length / 4));
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
  const early = median(samples.slice(0, quarter));
  const late = median(samples.slice(-quarter));
  const steady = late <= early * 1.1 + 4;
  console.log('');
  console.log(`p99 added by the router at ${rate} req/s: ${f(added)} ms (target < 2 ms) ${added < 2 ? 'PASS' : 'MISS'}`);
  console.log(`saturation throughput through the router: ${f(share * 100, 0)}% of direct (target >= 50%) ${share >= 0.5 ? 'PASS' : 'MISS'}`);
  console.log(
    `router RSS over the ${samples.length} s soak: first quarter ${f(early, 1)} MiB, last quarter ${f(late, 1)} MiB, peak ${f(Math.max(...samples), 1)} MiB ` +
      `(steady = last <= first x 1.1 + 4 MiB) ${steady ? 'PASS' : 'MISS'}`,
  );
  const errors = rows.reduce((s, r) => s + r.r.errors, 0);
  if (errors) console.log(`errors: ${errors} requests failed`);
}

const role = process.argv[2];
if (role) process.on('disconnect', () => process.exit(0));
if (role === 'engines') void engines(Number(process.argv[3]));
else if (role === 'router') void router(process.argv[3]!);
else if (role === 'load') load();
else await main();
