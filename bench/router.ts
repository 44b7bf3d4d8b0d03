// npm run bench:router [-- --phase S] [--rounds N] [--duration S] [--rate N] [--connections N]
//                       [--streams N] [--abuse-clients N] [--abuse-seconds S] [--abuse-max-buffered BYTES]
//                       [--skip fixed,node,wrk,soak,streams,abuse,abuse-default,profile]
//
// The router's cost, measured side by side in one run against the same stub
// engine reached directly and through nginx (one worker, keepalive upstream):
//   fixed rate   the Node load generator, open loop at --rate req/s: p50/p99 added
//   saturation   --connections closed-loop clients, from the Node generator and from
//                wrk (C, so the client does not eat the proxies' CPU): throughput,
//                CPU per request of each proxy; the router also with --metrics on
//   soak         the router at --rate for --duration s: RSS sampled each second
//   streams      ~10,000 idle streaming connections held through a fresh router: RSS
//   abuse        1,000 slow clients sending large bodies, 20 connections pipelining 400
//                requests each, and 100 clients that never read a large answer, through
//                a router at its defaults (--max-buffered 64MiB; then 256MiB, for
//                context), while a normal client sends 50 req/s: peak RSS and that
//                client's p99
//   profile      when the router is under 0.8x nginx: a CPU profile of it under wrk, summarised
// Each comparison is cut into --rounds that rotate the targets, so a neighbour's
// burst of CPU lands on all of them; ratios are given pooled and as the median
// of the rounds, which one burst cannot move.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { cpuSeconds, fmt, median, percentile, rssMiB, sleep, sortedOf, table } from './bench-util.js';
import { hasWrk, runWrk, startNginx, WRK_LUA, type Nginx, type WrkResult } from './nginx-wrk.js';
import { summariseProfile } from './profile-summary.js';
import { abuse, engines, load, router, streamEngine, streams, type LoadJob, type LoadResult } from './router-roles.js';

/** What a role process says once it listens: its port, or an engine pool's ports. */
interface Hello {
  port: number;
  ports: number[];
}

interface Child {
  child: ChildProcess;
  hello: Hello;
}

/** A role in its own process, with the open-file limit raised as far as it goes (streams need two descriptors each). */
function start(role: string, args: string[] = [], nodeFlags: string[] = []): Promise<Child> {
  const raise = 'ulimit -n "$(ulimit -Hn)" 2>/dev/null; exec "$@"';
  const child = spawn('sh', ['-c', raise, 'sh', process.execPath, ...nodeFlags, fileURLToPath(import.meta.url), role, ...args], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    serialization: 'advanced',
  });
  return new Promise((resolve, reject) => {
    child.once('message', (hello) => resolve({ child, hello: hello as Hello }));
    child.once('exit', (code) => reject(new Error(`${role} exited with ${String(code)}`)));
  });
}

function ask<T>(c: ChildProcess, message: unknown): Promise<T> {
  return new Promise((resolve) => {
    c.once('message', (r) => resolve(r as T));
    c.send(message as object);
  });
}

function openFileLimit(): number {
  const m = /Max open files\s+(\d+)/.exec(readFileSync('/proc/self/limits', 'utf8'));
  return m ? Number(m[1]) : 1024;
}

async function setTable(socket: string, models: Record<string, number[]>): Promise<void> {
  const { runRouterClient } = await import('../src/router/client.js');
  const table = {
    version: 1,
    models: Object.fromEntries(Object.entries(models).map(([m, ports]) => [m, ports.map((p, i) => ({ replica: `${m}-${i}`, url: `http://127.0.0.1:${p}` }))])),
  };
  const put = await runRouterClient('endpoints', JSON.stringify(table), { LLMGW_ROUTER_SOCKET: socket });
  if (put.code !== 0) throw new Error(put.stderr);
}

interface Side {
  label: string;
  port: number;
  pid: number | null;
  rounds: { rps: number; p50: number; p99: number; cpuUsPerReq: number; errors: number; requests: number }[];
  latencies: Float64Array[];
}

const side = (label: string, port: number, pid: number | null): Side => ({ label, port, pid, rounds: [], latencies: [] });

/** Run `each` on every side, `rounds` times, rotating the order, recording throughput and the side's own CPU per request. */
async function compare(
  sides: Side[],
  rounds: number,
  each: (s: Side) => Promise<{ requests: number; seconds: number; errors: number; p50: number; p99: number; latencies?: Float64Array }>,
): Promise<void> {
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < sides.length; k++) {
      const s = sides[(k + r) % sides.length]!;
      const before = s.pid ? cpuSeconds(s.pid) : 0;
      const out = await each(s);
      const used = s.pid ? cpuSeconds(s.pid) - before : NaN;
      s.rounds.push({
        rps: out.requests / out.seconds,
        p50: out.p50,
        p99: out.p99,
        cpuUsPerReq: (used * 1e6) / Math.max(1, out.requests),
        errors: out.errors,
        requests: out.requests,
      });
      if (out.latencies) s.latencies.push(out.latencies);
    }
  }
}

function ratioLine(what: string, a: Side, b: Side, target: number): string {
  const pooled = a.rounds.reduce((n, r) => n + r.requests, 0) / b.rounds.reduce((n, r) => n + r.requests, 0);
  const paired = median(a.rounds.map((r, i) => r.rps / b.rounds[i]!.rps));
  const verdict = pooled >= target ? 'PASS' : paired >= target ? 'PASS on the paired median' : 'MISS';
  return `${what}: pooled ${fmt(pooled)}x, median of ${a.rounds.length} rounds ${fmt(paired)}x (target >= ${target}x) ${verdict}`;
}

function sideRows(sides: Side[]): string[][] {
  return sides.map((s) => {
    const lat = sortedOf(s.latencies);
    const rps = s.rounds.reduce((n, r) => n + r.requests, 0) / s.rounds.reduce((n, r) => n + r.requests / r.rps, 0);
    const p50 = lat.length ? percentile(lat, 0.5) : median(s.rounds.map((r) => r.p50));
    const p99 = lat.length ? percentile(lat, 0.99) : median(s.rounds.map((r) => r.p99));
    return [
      s.label,
      String(s.rounds.reduce((n, r) => n + r.requests, 0)),
      String(s.rounds.reduce((n, r) => n + r.errors, 0)),
      fmt(rps, 0),
      fmt(p50),
      fmt(p99),
      s.pid ? fmt(median(s.rounds.map((r) => r.cpuUsPerReq)), 1) : '-',
    ];
  });
}

const HEADER = ['target', 'requests', 'errors', 'req/s', 'p50 ms', 'p99 ms', 'proxy CPU us/req'];

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      phase: { type: 'string', default: '10' },
      rounds: { type: 'string', default: '5' },
      duration: { type: 'string', default: '30' },
      rate: { type: 'string', default: '1000' },
      connections: { type: 'string', default: '64' },
      streams: { type: 'string' },
      'abuse-clients': { type: 'string', default: '1000' },
      'abuse-seconds': { type: 'string', default: '20' },
      'abuse-max-buffered': { type: 'string' },
      'abuse-pipeliners': { type: 'string', default: '20' },
      'abuse-slow-readers': { type: 'string', default: '100' },
      skip: { type: 'string', default: '' },
    },
  });
  const skip = new Set(values.skip.split(',').filter(Boolean));
  const phase = Number(values.phase);
  const rounds = Math.max(1, Number(values.rounds));
  const rate = Number(values.rate);
  const connections = Number(values.connections);
  const dir = mkdtempSync(join(tmpdir(), 'llmgw-bench-'));
  const children: ChildProcess[] = [];
  const keep = (c: Child): Child => (children.push(c.child), c);
  let nginx: Nginx | null = null;
  const notes: string[] = [];
  try {
    const eng = keep(await start('engines', ['1']));
    const enginePort = eng.hello.ports[0]!;
    const plain = keep(await start('router', [join(dir, 'plain.sock'), '{}']));
    const withMetrics = keep(await start('router', [join(dir, 'metrics.sock'), '{"metrics":true}']));
    for (const s of ['plain', 'metrics']) await setTable(join(dir, `${s}.sock`), { bench: [enginePort] });
    const loader = keep(await start('load')).child;
    const ng = await startNginx(dir, 20_000 + (process.pid % 20_000), [enginePort]);
    if (typeof ng === 'string') notes.push(`nginx: ${ng}; its rows are missing`);
    else nginx = ng;
    const wrkOk = hasWrk();
    if (!wrkOk) notes.push('wrk is not installed (Debian: apt-get install wrk); the wrk rows are missing');
    const script = join(dir, 'post.lua');
    writeFileSync(script, WRK_LUA);
    process.stderr.write(`router bench: 1 stub engine, rate ${rate}/s, ${connections} connections, ${phase}s per target in ${rounds} rounds\n`);

    const direct = (): Side => side('direct', enginePort, null);
    const viaNginx = (): Side[] => (nginx ? [side('nginx', nginx.port, nginx.pid)] : []);
    const viaRouter = (): Side => side('llmgw router', plain.hello.port, plain.child.pid!);
    const viaRouterMetrics = (): Side => side('llmgw router --metrics', withMetrics.hello.port, withMetrics.child.pid!);
    const nodeLoad = (job: Omit<LoadJob, 'ports'>) => async (s: Side) => {
      const r = await ask<LoadResult>(loader, { ...job, ports: [s.port] });
      const sorted = Float64Array.from(r.latencies).sort();
      return {
        requests: r.requests,
        seconds: r.seconds,
        errors: r.errors,
        p50: percentile(sorted, 0.5),
        p99: percentile(sorted, 0.99),
        latencies: r.latencies,
      };
    };
    const wrkLoad = (seconds: number) => async (s: Side) => {
      const r: WrkResult = await runWrk(script, `http://127.0.0.1:${s.port}/v1/chat/completions`, connections, seconds);
      return { requests: r.requests, seconds: r.seconds, errors: r.errors, p50: r.p50ms, p99: r.p99ms };
    };

    // Warm every path (JIT, kept-alive connections) before anything is measured.
    const warm = [direct(), ...viaNginx(), viaRouter(), viaRouterMetrics()];
    await compare(warm, 1, nodeLoad({ kind: 'saturate', seconds: 2, rate, connections }));
    if (wrkOk) await compare(warm, 1, wrkLoad(2));

    const fixed = [direct(), ...viaNginx(), viaRouter()];
    if (!skip.has('fixed')) await compare(fixed, rounds, nodeLoad({ kind: 'rate', seconds: phase / rounds, rate, connections }));
    const nodeSat = [direct(), ...viaNginx(), viaRouter()];
    if (!skip.has('node')) await compare(nodeSat, rounds, nodeLoad({ kind: 'saturate', seconds: phase / rounds, rate, connections }));
    const wrkSat = [direct(), ...viaNginx(), viaRouter(), viaRouterMetrics()];
    if (wrkOk && !skip.has('wrk')) await compare(wrkSat, rounds, wrkLoad(phase / rounds));

    if (fixed[0]!.rounds.length) {
      console.log(`\n== fixed rate ${rate} req/s (Node load generator, open loop; latency from each request's scheduled time)`);
      console.log(table([HEADER, ...sideRows(fixed)]));
      const [d, , r] = fixed.length === 3 ? fixed : [fixed[0]!, null, fixed[1]!];
      const added = (q: number) => percentile(sortedOf(r.latencies), q) - percentile(sortedOf(d.latencies), q);
      const paired = median(
        r.latencies.map((l, i) => percentile(Float64Array.from(l).sort(), 0.99) - percentile(Float64Array.from(d.latencies[i]!).sort(), 0.99)),
      );
      console.log(
        `p99 added by the router at ${rate} req/s: pooled ${fmt(added(0.99))} ms, median of ${rounds} rounds ${fmt(paired)} ms (p50 added ${fmt(added(0.5))} ms; target p99 < 1 ms) ${added(0.99) < 1 ? 'PASS' : paired < 1 ? 'PASS on the paired median' : 'MISS'}`,
      );
    }
    for (const [name, sides] of [
      [`saturation, ${connections} connections, Node load generator`, nodeSat],
      [`saturation, ${connections} connections, wrk`, wrkSat],
    ] as const) {
      if (!sides[0]!.rounds.length) continue;
      console.log(`\n== ${name}`);
      console.log(table([HEADER, ...sideRows(sides)]));
      const r = sides.find((s) => s.label === 'llmgw router')!;
      console.log(ratioLine('router vs direct', r, sides[0]!, 0.5));
      const n = sides.find((s) => s.label === 'nginx');
      if (n) {
        console.log(ratioLine('router vs nginx', r, n, 0.8));
        console.log(`nginx vs direct (context): ${fmt(median(n.rounds.map((x, i) => x.rps / sides[0]!.rounds[i]!.rps)))}x`);
      }
      const m = sides.find((s) => s.label === 'llmgw router --metrics');
      if (m) {
        const cpu = (s: Side) => median(s.rounds.map((x) => x.cpuUsPerReq));
        console.log(
          `metrics on vs off: throughput ${fmt(median(m.rounds.map((x, i) => x.rps / r.rounds[i]!.rps)))}x (median of rounds), router CPU ${fmt(cpu(m), 1)} vs ${fmt(cpu(r), 1)} us/req`,
        );
      }
    }

    if (!skip.has('soak')) {
      const soak = Number(values.duration);
      const samples: number[] = [];
      const sampler = setInterval(() => samples.push(rssMiB(plain.child.pid!)), 1000);
      const r = await ask<LoadResult>(loader, { kind: 'rate', seconds: soak, rate, connections, ports: [plain.hello.port] });
      clearInterval(sampler);
      const quarter = Math.max(1, Math.floor(samples.length / 4));
      const early = median(samples.slice(0, quarter));
      const late = median(samples.slice(-quarter));
      console.log(
        `\n== soak: router RSS over ${samples.length} s at ${rate} req/s (${r.requests} requests, ${r.errors} errors): first quarter ${fmt(early, 1)} MiB, last quarter ${fmt(late, 1)} MiB, peak ${fmt(Math.max(...samples), 1)} MiB (steady = last <= first x 1.1 + 4 MiB) ${late <= early * 1.1 + 4 ? 'PASS' : 'MISS'}`,
      );
    }

    if (!skip.has('streams')) await streamsPhase(dir, values.streams === undefined ? undefined : Number(values.streams), keep);
    if (!skip.has('abuse')) {
      // The target (RSS <= 300 MB) at the router's defaults (or the stated --max-buffered); then 256 MiB, the old default, for what it costs.
      const flood = {
        clients: Number(values['abuse-clients']),
        pipeliners: Number(values['abuse-pipeliners']),
        slowReaders: Number(values['abuse-slow-readers']),
      };
      const stated = values['abuse-max-buffered'] === undefined ? null : Number(values['abuse-max-buffered']);
      const control = { loader: keep(await start('load')).child, port: plain.hello.port };
      await abusePhase(dir, flood, Number(values['abuse-seconds']), stated, enginePort, loader, control, keep, true);
      if (!skip.has('abuse-default'))
        await abusePhase(dir, flood, Number(values['abuse-seconds']), 256 * 1024 * 1024, enginePort, loader, control, keep, false);
    }

    const wr = wrkSat.find((s) => s.label === 'llmgw router')!;
    const wn = wrkSat.find((s) => s.label === 'nginx');
    const below = wn && wr.rounds.length && median(wr.rounds.map((x, i) => x.rps / wn.rounds[i]!.rps)) < 0.8;
    if (wrkOk && !skip.has('profile') && (below || process.env['LLMGW_BENCH_PROFILE'])) {
      await profilePhase(dir, enginePort, script, connections, phase);
    }
    for (const n of notes) console.log(`note: ${n}`);
  } finally {
    nginx?.stop();
    // Disconnecting lets each child exit by itself (so a --cpu-prof profile gets written).
    for (const c of children) if (c.connected) c.disconnect();
    await sleep(200);
    rmSync(dir, { recursive: true, force: true });
  }
}

async function streamsPhase(dir: string, wanted: number | undefined, keep: (c: Child) => Child): Promise<void> {
  // Each stream holds two descriptors in the router (client and engine side).
  const limit = openFileLimit();
  const count = Math.min(wanted ?? 10_000, Math.floor((limit - 64) / 2));
  const se = keep(await start('stream-engine'));
  const rt = keep(await start('router', [join(dir, 'streams.sock'), '{}']));
  await setTable(join(dir, 'streams.sock'), { stream: [se.hello.port] });
  const client = keep(await start('streams')).child;
  await sleep(500);
  const before = rssMiB(rt.child.pid!);
  const t0 = Date.now();
  const opened = await ask<{ established: number; failed: number }>(client, { open: { port: rt.hello.port, count } });
  const seconds = (Date.now() - t0) / 1000;
  await sleep(2000);
  const held = rssMiB(rt.child.pid!);
  await ask(client, { release: true });
  console.log(`\n== ${opened.established} idle streaming connections held through one router (${opened.failed} failed; opened in ${fmt(seconds, 1)} s)`);
  if (count < 10_000) console.log(`   (${count}, not 10,000: this machine's open-file limit is ${limit}, and each stream holds two descriptors in the router)`);
  const perStream = ((held - before) * 1024) / Math.max(1, opened.established);
  console.log(
    `router RSS: ${fmt(before, 1)} MiB before, ${fmt(held, 1)} MiB holding them (${fmt(perStream, 1)} KiB per stream; at 10,000: ${fmt(before + (perStream * 10_000) / 1024, 0)} MiB) (target < 500 MB) ${held * 1.048576 < 500 && opened.failed === 0 ? 'PASS' : 'MISS'}`,
  );
}

/** Each slow client's pace: 16 KiB a second, so 1,000 of them fill 96 MiB in about six seconds. */
const PIECE = 16 * 1024;
const EVERY_MS = 1000;

async function abusePhase(
  dir: string,
  flood: { clients: number; pipeliners: number; slowReaders: number },
  seconds: number,
  stated: number | null,
  enginePort: number,
  loader: ChildProcess,
  control: { loader: ChildProcess; port: number },
  keep: (c: Child) => Child,
  target: boolean,
): Promise<void> {
  const { DEFAULT_MAX_BUFFERED_BYTES } = await import('../src/router/server.js');
  const maxBuffered = stated ?? DEFAULT_MAX_BUFFERED_BYTES;
  const clients = flood.clients;
  const sock = join(dir, `abuse-${maxBuffered}.sock`);
  // LLMGW_BENCH_ABUSE_PROF=DIR: a CPU profile of this router, written to DIR when the bench ends.
  const prof = process.env['LLMGW_BENCH_ABUSE_PROF'];
  const flags = [...(prof ? ['--cpu-prof', `--cpu-prof-dir=${prof}`] : []), ...(process.env['LLMGW_BENCH_ROUTER_FLAGS'] ?? '').split(' ').filter(Boolean)];
  const rt = keep(await start('router', [sock, JSON.stringify(stated === null ? {} : { maxBufferedBytes: maxBuffered })], flags));
  await setTable(sock, { bench: [enginePort] });
  const attacker = keep(await start('abuse')).child;
  const pid = rt.child.pid!;
  const before = rssMiB(pid);
  const samples: number[] = [];
  const sampler = setInterval(() => samples.push(rssMiB(pid)), 250);
  await ask(attacker, {
    start: { port: rt.hello.port, count: clients, piece: PIECE, everyMs: EVERY_MS, pipeliners: flood.pipeliners, slowReaders: flood.slowReaders },
  });
  // Let the flood fill the router's buffers before the normal client is measured.
  await sleep(Math.min(10, seconds / 2) * 1000);
  // The same client, at the same moment, through a router with no flood: what the machine's own load costs.
  const cpuBefore = cpuSeconds(pid);
  const schedBefore = schedStat(pid);
  const t0 = Date.now();
  const [normal, quiet] = await Promise.all([
    ask<LoadResult>(loader, { kind: 'rate', seconds, rate: 50, connections: 8, ports: [rt.hello.port] }),
    ask<LoadResult>(control.loader, { kind: 'rate', seconds, rate: 50, connections: 8, ports: [control.port] }),
  ]);
  const stats = await ask<{ refused: number; connections: number; bytes: number; pipelined: number; pipelinedRefused: number; slowCut: number }>(attacker, {
    stop: true,
  });
  clearInterval(sampler);
  const wall = (Date.now() - t0) / 1000;
  const busy = (cpuSeconds(pid) - cpuBefore) / wall;
  const sched = schedStat(pid);
  const waited = sched ? (sched.waited - schedBefore!.waited) / wall : NaN;
  const sorted = Float64Array.from(normal.latencies).sort();
  const calm = Float64Array.from(quiet.latencies).sort();
  const peak = Math.max(...samples);
  console.log(
    `\n== abuse: ${clients} slow clients each sending an 8 MiB body ${PIECE / 1024} KiB every ${EVERY_MS} ms, router with --max-buffered ${fmt(maxBuffered / 1048576, 0)}MiB${stated === null ? ' (its default)' : ''}`,
  );
  console.log(`flood: ${fmt(stats.bytes / 1048576, 0)} MiB sent over ${stats.connections} connections, ${stats.refused} refused with 503`);
  console.log(
    `beside it: ${flood.pipeliners} connections pipelining 400 requests each (${stats.pipelined} answers, ${stats.pipelinedRefused} of them 429), ${flood.slowReaders} clients never reading a 4 MiB answer (${stats.slowCut} cut)`,
  );
  const verdict = target ? ` (target <= 300 MB) ${peak * 1.048576 <= 300 ? 'PASS' : 'MISS'}` : ' (no target: for sizing --max-buffered)';
  console.log(`router RSS: ${fmt(before, 1)} MiB before, peak ${fmt(peak, 1)} MiB (${fmt(peak * 1.048576, 0)} MB)${verdict}`);
  console.log(
    `router CPU while the normal client ran: ${fmt(busy * 100, 0)}% of one core; runnable but waiting for a CPU ${fmt(waited * 100, 0)}% of the time (/proc schedstat: what the machine's other load took from it)`,
  );
  const p99 = percentile(sorted, 0.99);
  console.log(
    `normal client at 50 req/s meanwhile: ${normal.requests} requests, ${normal.errors} errors, p50 ${fmt(percentile(sorted, 0.5))} ms, p99 ${fmt(p99)} ms${target ? ` (target p99 < 100 ms) ${p99 < 100 && normal.errors === 0 ? 'PASS' : 'MISS'}` : ''}`,
  );
  console.log(
    `control, the same client at the same moment through a router with no flood: p50 ${fmt(percentile(calm, 0.5))} ms, p99 ${fmt(percentile(calm, 0.99))} ms (the machine's share; load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')})`,
  );
  if (target) {
    console.log(
      `AT DEFAULTS: normal client p50 ${fmt(percentile(sorted, 0.5))} ms, p99 ${fmt(p99)} ms (bound < 100 ms); router RSS max ${fmt(peak * 1.048576, 0)} MB (bound 300 MB)`,
    );
  }
}

/** Time a process was runnable but not running (the scheduler's queue), from /proc/PID/schedstat; null without schedstats. */
function schedStat(pid: number): { waited: number } | null {
  try {
    const f = readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ');
    return { waited: Number(f[1]) / 1e9 };
  } catch {
    return null;
  }
}

async function profilePhase(dir: string, enginePort: number, script: string, connections: number, seconds: number): Promise<void> {
  const profDir = join(dir, 'prof');
  const rt = await start('router', [join(dir, 'prof.sock'), '{}'], ['--cpu-prof', `--cpu-prof-dir=${profDir}`]);
  await setTable(join(dir, 'prof.sock'), { bench: [enginePort] });
  await runWrk(script, `http://127.0.0.1:${rt.hello.port}/v1/chat/completions`, connections, 2);
  const r = await runWrk(script, `http://127.0.0.1:${rt.hello.port}/v1/chat/completions`, connections, seconds);
  const exited = new Promise((res) => rt.child.once('exit', res));
  rt.child.disconnect();
  await exited;
  const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
  console.log(`\n== profile: the router under wrk (${fmt(r.rps, 0)} req/s), node --cpu-prof`);
  console.log(file ? summariseProfile(join(profDir, file)) : 'no profile was written');
}

const role = process.argv[2];
if (role) process.on('disconnect', () => process.exit(0));
if (role === 'engines') void engines(Number(process.argv[3]));
else if (role === 'stream-engine') void streamEngine();
else if (role === 'router') void router(process.argv[3]!, process.argv[4] ?? '{}');
else if (role === 'load') load();
else if (role === 'streams') streams();
else if (role === 'abuse') abuse();
else await main();
