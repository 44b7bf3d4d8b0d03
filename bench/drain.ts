// npm run bench:drain — what draining before a stop costs and buys
// (docs/safety.md#stopping-a-replica), on the simulated fleet with the real router:
//
//   scale-down   200 streaming requests at a steady rate while models.yaml drops
//                a model from 4 replicas to 1: streams cut short (target 0)
//   spec roll    the same during a spec roll of 2 replicas, with the drain and
//                with `drainTimeout: 0s` (stops at once, as before): streams cut
//                short, and how much longer the roll takes for draining
//   router CPU   the router's CPU per request under wrk (bench:router's method),
//                and the in-flight/served counters alone, timed apart from it
//
// Ticks run back to back on the real clock (a reconciler reacting at once), so
// roll times are what the fleet takes, not a schedule.
//
//   node dist/bench/drain.js [--streams 200] [--rate 20] [--skip rolls,cpu]

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { acquire, createRouterState, release, type Upstream } from '../src/router/table.js';
import { runRouterClient } from '../src/router/client.js';
import { cpuSeconds, median, sleep } from './bench-util.js';
import { startDrainWorld, type DrainWorld } from './drain-world.js';
import { hasWrk, runWrk, WRK_LUA } from './nginx-wrk.js';

const models = (replicas: number, extra = '') =>
  `apiVersion: llmgw/v1\nkind: Models\nmodels:\n  - { name: m1, weights: org/m1, engine: vllm, gpus: 1, replicas: ${replicas}, routing: least-inflight${extra} }\n`;
/** 20 tokens 100 ms apart: a stream of about 1.9 s. */
const ANSWER = Array.from({ length: 20 }, (_, i) => `t${i}`).join(' ');
const FAST_ANSWER = 'Hello from the llmgw stub engine.';

interface Traffic {
  done: Promise<{ intact: number; cut: number; refused: number }>;
}

/** `n` streams, one every 1000/rate ms, each read to its end: intact = every token and [DONE]. */
function traffic(w: DrainWorld, n: number, rate: number): Traffic {
  const one = async (i: number): Promise<'intact' | 'cut' | 'refused'> => {
    await sleep((i * 1000) / rate);
    try {
      const res = await fetch(`http://127.0.0.1:${w.world.routerPort}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm1', stream: true, messages: [{ role: 'user', content: `bench ${i}` }] }),
      });
      if (res.status !== 200) return 'refused';
      const body = await res.text().catch(() => null);
      if (body === null) return 'cut';
      let text = '';
      let done = false;
      for (const line of body.split('\n')) {
        if (line === 'data: [DONE]') done = true;
        else if (line.startsWith('data: '))
          text += (JSON.parse(line.slice(6)) as { choices: { delta?: { content?: string } }[] }).choices[0]?.delta?.content ?? '';
      }
      return done && (text === ANSWER || text === FAST_ANSWER) ? 'intact' : 'cut';
    } catch {
      return 'cut';
    }
  };
  const all = Promise.all(Array.from({ length: n }, (_, i) => one(i)));
  return {
    done: all.then((r) => ({
      intact: r.filter((x) => x === 'intact').length,
      cut: r.filter((x) => x === 'cut').length,
      refused: r.filter((x) => x === 'refused').length,
    })),
  };
}

async function slow(w: DrainWorld): Promise<void> {
  for (const r of await w.replicas()) {
    if (r.state === 'running' && r.endpoint)
      await fetch(`${r.endpoint}/stub/config`, { method: 'PUT', body: JSON.stringify({ tokenDelayMs: 100, answer: ANSWER }) });
  }
}

/** Ticks back to back until one plans nothing and no replica starts or drains; seconds taken and ticks. */
async function settle(w: DrainWorld): Promise<{ seconds: number; ticks: number }> {
  const t0 = performance.now();
  for (let ticks = 1; ticks <= 200; ticks++) {
    const r = await w.tick();
    const moving = r.report?.replicas.some((x) => x.state === 'starting' || x.state === 'draining') ?? true;
    if (r.plan && r.plan.actions.length === 0 && !moving) return { seconds: (performance.now() - t0) / 1000, ticks };
    // A reconciler watching closely: the next tick as soon as this one is done, with a breath for the engines.
    await sleep(200);
  }
  throw new Error('the fleet did not settle in 200 ticks');
}

interface Row {
  phase: string;
  streams: number;
  intact: number;
  cut: number;
  refused: number;
  seconds: number;
  ticks: number;
}

async function scaleDown(w: DrainWorld, n: number, rate: number): Promise<Row> {
  await settle(w);
  await slow(w);
  const t = traffic(w, n, rate);
  await sleep(2000);
  await w.merge({ models: models(1) });
  const s = await settle(w);
  const r = await t.done;
  return { phase: 'scale-down 4 -> 1', streams: n, ...r, ...s };
}

async function roll(w: DrainWorld, n: number, rate: number, drain: boolean, args: string): Promise<Row> {
  const extra = drain ? '' : ', drainTimeout: 0s';
  await w.merge({ models: models(2, `${extra}${w.lastArgs ? `, args: [${w.lastArgs}]` : ''}`) });
  await settle(w);
  await slow(w);
  const t = traffic(w, n, rate);
  await sleep(2000);
  await w.merge({ models: models(2, `${extra}, args: [${args}]`) });
  w.lastArgs = args;
  const s = await settle(w);
  const r = await t.done;
  return { phase: `spec roll of 2, ${drain ? 'drain (default)' : 'drainTimeout: 0s'}`, streams: n, ...r, ...s };
}

/** The router's CPU per request, as bench:router measures it: wrk through a router process to one fast engine. */
async function routerCpu(seconds: number, rounds: number): Promise<{ usPerReq: number[]; rps: number[] } | string> {
  if (!hasWrk()) return 'wrk is not installed (Debian: apt-get install wrk)';
  const dir = mkdtempSync(join(tmpdir(), 'llmgw-bench-drain-cpu-'));
  const roles = fileURLToPath(new URL('./router.js', import.meta.url));
  const children: ChildProcess[] = [];
  const start = (args: string[]) =>
    new Promise<{ child: ChildProcess; hello: { port: number; ports: number[] } }>((resolve, reject) => {
      const child = spawn(process.execPath, [roles, ...args], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      children.push(child);
      child.once('message', (hello) => resolve({ child, hello: hello as { port: number; ports: number[] } }));
      child.once('exit', (code) => reject(new Error(`${String(args[0])} exited with ${String(code)}`)));
    });
  try {
    const eng = await start(['engines', '1']);
    const rt = await start(['router', join(dir, 'r.sock'), '{}']);
    const table = { version: 1, models: { bench: [{ replica: 'bench-0', url: `http://127.0.0.1:${eng.hello.ports[0]!}` }] } };
    const put = await runRouterClient('endpoints', JSON.stringify(table), { LLMGW_ROUTER_SOCKET: join(dir, 'r.sock') });
    if (put.code !== 0) throw new Error(put.stderr);
    const script = join(dir, 'post.lua');
    writeFileSync(script, WRK_LUA);
    const url = `http://127.0.0.1:${rt.hello.port}/v1/chat/completions`;
    await runWrk(script, url, 64, 2); // warm
    const usPerReq: number[] = [];
    const rps: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const before = cpuSeconds(rt.child.pid!);
      const out = await runWrk(script, url, 64, seconds);
      usPerReq.push(((cpuSeconds(rt.child.pid!) - before) * 1e6) / Math.max(1, out.requests));
      rps.push(out.rps);
    }
    return { usPerReq, rps };
  } finally {
    for (const c of children) c.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The counters alone: a request's acquire + release as the router does them
 * (last use, in flight, requests, errors), against the last-use stamp alone —
 * what the router kept per request before in-flight and served counts.
 */
function counterCost(iterations: number): { withCounters: number; lastUseOnly: number } {
  const state = createRouterState(() => Date.now());
  const cell = { lastUsedMs: 0, inFlight: 0, requests: 0, errors: 0 };
  const u = { replica: 'r-0', url: 'http://x', origin: 'http://x', basePath: '', cell, pool: null } as Upstream;
  const time = (f: () => void): number => {
    const t0 = process.hrtime.bigint();
    f();
    return Number(process.hrtime.bigint() - t0) / iterations;
  };
  const results = { withCounters: [] as number[], lastUseOnly: [] as number[] };
  for (let round = 0; round < 5; round++) {
    results.withCounters.push(
      time(() => {
        for (let i = 0; i < iterations; i++) {
          acquire(state, u);
          release(u, (i & 31) === 0);
        }
      }),
    );
    results.lastUseOnly.push(
      time(() => {
        for (let i = 0; i < iterations; i++) cell.lastUsedMs = state.nowMs();
      }),
    );
  }
  return { withCounters: median(results.withCounters), lastUseOnly: median(results.lastUseOnly) };
}

const fmt = (x: number, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : '-');

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      streams: { type: 'string', default: '200' },
      rate: { type: 'string', default: '20' },
      skip: { type: 'string', default: '' },
      'cpu-seconds': { type: 'string', default: '5' },
    },
  });
  const n = Number(values.streams);
  const rate = Number(values.rate);
  const skip = new Set(values.skip.split(',').filter(Boolean));
  const rows: Row[] = [];
  const w = await startDrainWorld(models(4));
  try {
    // Stopping 3 of 4 at once is the point here: the safety rule would refuse it.
    await w.merge({ cluster: (doc) => (doc.safety.maxStopFraction = 1) });
    console.log(`bench:drain: ${n} streams at ${rate}/s (~1.9 s each) through the router of a simulated fleet`);
    rows.push(await scaleDown(w, n, rate));
    console.log(`  ${rows.at(-1)!.phase}: done`);
    if (!skip.has('rolls')) {
      rows.push(await roll(w, n, rate, true, '--max-model-len, "4096"'));
      console.log(`  ${rows.at(-1)!.phase}: done`);
      rows.push(await roll(w, n, rate, false, '--max-model-len, "8192"'));
      console.log(`  ${rows.at(-1)!.phase}: done`);
    }
  } finally {
    await w.close();
  }
  console.log('\n| phase | streams | intact | cut short | refused | merge to settled | ticks |');
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) console.log(`| ${r.phase} | ${r.streams} | ${r.intact} | ${r.cut} | ${r.refused} | ${fmt(r.seconds)} s | ${r.ticks} |`);
  const withDrain = rows.find((r) => r.phase.includes('drain (default)'));
  const without = rows.find((r) => r.phase.includes('0s'));
  if (withDrain && without)
    console.log(
      `\nThe roll takes ${fmt(withDrain.seconds - without.seconds)} s longer with the drain (${fmt(withDrain.seconds)} s against ${fmt(without.seconds)} s).`,
    );
  const cut = rows.filter((r) => !r.phase.includes('0s')).reduce((k, r) => k + r.cut, 0);
  console.log(`Target: 0 streams cut short with the drain: ${cut === 0 ? 'pass' : `MISS (${cut})`}.`);

  if (!skip.has('cpu')) {
    const c = counterCost(20_000_000);
    console.log(
      `\nCounters alone: acquire + release ${fmt(c.withCounters, 2)} ns per request, the last-use stamp alone ${fmt(c.lastUseOnly, 2)} ns: ${fmt(c.withCounters - c.lastUseOnly, 2)} ns added per request.`,
    );
    const cpu = await routerCpu(Number(values['cpu-seconds']), 3);
    if (typeof cpu === 'string') console.log(`Router CPU: skipped (${cpu}).`);
    else
      console.log(
        `Router CPU per request under wrk -t1 -c64 (3 rounds): median ${fmt(median(cpu.usPerReq))} us (${cpu.usPerReq.map((x) => fmt(x)).join(', ')}), ${fmt(median(cpu.rps), 0)} req/s. bench:router's README figure: 66 us (64.6 with --metrics).`,
      );
  }
}

await main();
