// npm run bench:routing [-- --rate N] [--seed N] [--conversations N] [--turns N] [--replicas N]
//
// Cache-aware routing against a SIMULATED engine cache: the stub engines model a
// prefix (KV) cache (src/sim/stub-cache.ts: an LRU of prompt blocks, time to
// first token = base + uncached characters × cost, prefills queued one at a time
// per replica). The figures say what routing does to cache reuse in that model;
// they are not measurements of any real engine.
//
// One seeded trace of conversations (default 200 × 5 turns over 10 system prompts
// with Zipf popularity) is replayed at a fixed rate through the real router
// against 8 fresh stub replicas per mode, with `routing: least-inflight` and with
// `routing: prefix` — both at once, each request sent to both, so the modes meet
// the same moment of a shared machine — then a hotspot trace (every request shares
// one system prompt and nothing else) the same way. Time to first token is
// measured by the client: from sending the request to the first token's SSE event.

import { fork, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { fmt, percentile, sleep, table } from './bench-util.js';
import { conversationTrace, hotspotTrace, type TraceRequest } from './routing-trace.js';

/** The simulated engine (see the header): fixed for the whole run so both modes meet the same model. */
const ENGINE = {
  answer: Array.from({ length: 16 }, (_, i) => `tok${i}`).join(' '),
  tokenDelayMs: 60,
  cache: { capacityChars: 200_000, blockChars: 64, baseMs: 5, msPerChar: 0.03, slots: 1 },
};

// ---- the engines' process ----

async function enginesRole(count: number): Promise<void> {
  const { startStubEngine } = await import('../src/sim/stub-engine.js');
  const list = await Promise.all(Array.from({ length: count }, () => startStubEngine({ model: 'bench', ...ENGINE })));
  process.on('message', (m: { stats?: true }) => {
    if (m.stats) process.send!({ stats: list.map((e) => e.stats()) });
  });
  process.send!({ ports: list.map((e) => e.port) });
}

async function routerRole(socket: string): Promise<void> {
  const { startRouter } = await import('../src/router/server.js');
  const r = await startRouter({ listen: { host: '127.0.0.1', port: 0 }, adminSocket: socket });
  process.send!({ port: r.port });
}

// ---- orchestration ----

/** What a role process says once it listens: its port, or an engine pool's ports. */
interface Hello {
  port: number;
  ports: number[];
}

function start(role: string, ...args: string[]): Promise<{ child: ChildProcess; hello: Hello }> {
  const child = fork(fileURLToPath(import.meta.url), [role, ...args], { stdio: 'inherit' });
  return new Promise((resolve, reject) => {
    child.once('message', (hello) => resolve({ child, hello: hello as Hello }));
    child.once('exit', (code) => reject(new Error(`${role} exited with ${String(code)}`)));
  });
}

interface RunResult {
  mode: string;
  ttft: Float64Array;
  errors: number;
  perReplica: number[];
  hitRatio: number;
  seconds: number;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });

/** One streamed request; resolves with its time to first token (ms), or null when it failed. */
function send(port: number, r: TraceRequest): Promise<number | null> {
  return new Promise((resolve) => {
    const body = JSON.stringify(r.body);
    const t0 = performance.now();
    let first: number | null = null;
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/v1/chat/completions',
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          if (first === null && c.includes('"content"')) first = performance.now() - t0;
        });
        res.on('end', () => resolve(res.statusCode === 200 ? first : null));
        res.on('error', () => resolve(null));
      },
    );
    req.on('error', () => resolve(null));
    req.end(body);
  });
}

type Mode = 'least-inflight' | 'prefix';

/**
 * Replay `trace` through both modes at once: each request is sent to model
 * `bench-least-inflight` and to `bench-prefix` (in alternating order), each model
 * with its own fresh replicas in one engine process. Both modes meet the same
 * moment of a shared machine, so a neighbour's burst of CPU cannot favour either.
 */
async function replay(trace: TraceRequest[], rate: number, replicas: number, socket: string, routerPort: number): Promise<RunResult[]> {
  const modes: Mode[] = ['least-inflight', 'prefix'];
  const engines = await start('engines', String(replicas * modes.length));
  try {
    const ports = engines.hello.ports;
    const { runRouterClient } = await import('../src/router/client.js');
    const models: Record<string, { replica: string; url: string }[]> = {};
    const routing: Record<string, Mode> = {};
    modes.forEach((mode, m) => {
      models[`bench-${mode}`] = ports.slice(m * replicas, (m + 1) * replicas).map((p, i) => ({ replica: `${mode}-${i}`, url: `http://127.0.0.1:${p}` }));
      routing[`bench-${mode}`] = mode;
    });
    const put = await runRouterClient('endpoints', JSON.stringify({ version: 1, models, routing }), { LLMGW_ROUTER_SOCKET: socket });
    if (put.code !== 0) throw new Error(put.stderr);
    const ttfts = modes.map(() => [] as number[]);
    const errors = modes.map(() => 0);
    const started = performance.now();
    const pending: Promise<void>[] = [];
    for (let k = 0; k < trace.length; k++) {
      const due = started + (k * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 1) await sleep(wait);
      for (let j = 0; j < modes.length; j++) {
        const m = (j + k) % modes.length;
        const r = trace[k]!;
        const sent = send(routerPort, { ...r, body: { ...r.body, model: `bench-${modes[m]!}` } });
        pending.push(
          sent.then((t) => {
            if (t === null) errors[m]!++;
            else ttfts[m]!.push(t);
          }),
        );
      }
    }
    await Promise.all(pending);
    const seconds = (performance.now() - started) / 1000;
    type EngineStats = { requests: number; cache: { promptChars: number; cachedChars: number } }[];
    const stats = await new Promise<EngineStats>((resolve) => {
      engines.child.once('message', (m) => resolve((m as { stats: EngineStats }).stats));
      engines.child.send({ stats: true });
    });
    return modes.map((mode, m) => {
      const mine = stats.slice(m * replicas, (m + 1) * replicas);
      const prompt = mine.reduce((n, s) => n + s.cache.promptChars, 0);
      const cached = mine.reduce((n, s) => n + s.cache.cachedChars, 0);
      return {
        mode,
        ttft: Float64Array.from(ttfts[m]!).sort(),
        errors: errors[m]!,
        perReplica: mine.map((s) => s.requests),
        hitRatio: cached / Math.max(1, prompt),
        seconds,
      };
    });
  } finally {
    engines.child.kill();
  }
}

function rows(results: RunResult[]): string[][] {
  const head = ['routing', 'requests', 'errors', 'mean TTFT ms', 'p50 ms', 'p99 ms', 'cache hit (chars)', 'busiest replica / mean', 'requests per replica'];
  return [
    head,
    ...results.map((r) => {
      const mean = r.ttft.reduce((a, b) => a + b, 0) / r.ttft.length;
      const perMean = r.perReplica.reduce((a, b) => a + b, 0) / r.perReplica.length;
      return [
        r.mode,
        String(r.ttft.length),
        String(r.errors),
        fmt(mean, 1),
        fmt(percentile(r.ttft, 0.5), 1),
        fmt(percentile(r.ttft, 0.99), 1),
        `${fmt(r.hitRatio * 100, 0)}%`,
        fmt(Math.max(...r.perReplica) / perMean),
        r.perReplica.join(' '),
      ];
    }),
  ];
}

const meanOf = (r: RunResult): number => r.ttft.reduce((a, b) => a + b, 0) / r.ttft.length;

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      rate: { type: 'string', default: '60' },
      seed: { type: 'string', default: '20261130' },
      conversations: { type: 'string', default: '200' },
      turns: { type: 'string', default: '5' },
      'system-prompts': { type: 'string', default: '10' },
      replicas: { type: 'string', default: '8' },
      concurrent: { type: 'string', default: '200' },
      only: { type: 'string', default: '' },
    },
  });
  const rate = Number(values.rate);
  const replicas = Number(values.replicas);
  const seed = Number(values.seed);
  const dir = mkdtempSync(join(tmpdir(), 'llmgw-routing-'));
  const socket = join(dir, 'admin.sock');
  const router = await start('router', socket);
  try {
    const trace = conversationTrace({
      seed,
      conversations: Number(values.conversations),
      turns: Number(values.turns),
      systemPrompts: Number(values['system-prompts']),
      zipfS: 1.0,
      concurrent: Number(values.concurrent),
      withUser: true,
    });
    const hot = hotspotTrace(seed + 1, trace.length);
    console.log('SIMULATION: the stub engines model a prefix cache (src/sim/stub-cache.ts); these are not measurements of a real engine.');
    console.log(
      `engine model: LRU of ${ENGINE.cache.capacityChars} prompt characters per replica in ${ENGINE.cache.blockChars}-character blocks; TTFT = ${ENGINE.cache.baseMs} ms + ${ENGINE.cache.msPerChar} ms x uncached characters, one prefill at a time; ${ENGINE.tokenDelayMs} ms per further token`,
    );
    console.log(
      `trace: ${values.conversations} conversations x ${values.turns} turns over ${values['system-prompts']} system prompts (Zipf s=1), ${values.concurrent} open at once, each with its user id; ${trace.length} requests at ${rate} req/s through the router to ${replicas} replicas (seed ${seed})\n`,
    );
    const port = router.hello.port;
    let errors = 0;
    if (values.only !== 'hotspot') {
      const [li, px] = (await replay(trace, rate, replicas, socket, port)) as [RunResult, RunResult];
      console.log(table(rows([li, px]), 1));
      const meanGain = meanOf(li) / meanOf(px);
      const p99Gain = percentile(li.ttft, 0.99) / percentile(px.ttft, 0.99);
      const busiest = Math.max(...px.perReplica) / (px.perReplica.reduce((a, b) => a + b, 0) / px.perReplica.length);
      console.log(
        `prefix vs least-inflight: mean TTFT ${fmt(meanGain)}x lower (target >= 2x) ${meanGain >= 2 ? 'PASS' : 'MISS'}; p99 TTFT ${fmt(p99Gain)}x lower (target >= 1.5x) ${p99Gain >= 1.5 ? 'PASS' : 'MISS'}`,
      );
      console.log(`prefix: busiest replica served ${fmt(busiest)}x the mean (target <= 1.3x) ${busiest <= 1.3 ? 'PASS' : 'MISS'}`);
      errors += li.errors + px.errors;
    }
    if (values.only !== 'main') {
      console.log(`\nhotspot trace: ${hot.length} requests that share one system prompt (2,500 characters) and nothing else, no user id, at ${rate} req/s`);
      const [hli, hpx] = (await replay(hot, rate, replicas, socket, port)) as [RunResult, RunResult];
      console.log(table(rows([hli, hpx]), 1));
      const hm = meanOf(hpx) / meanOf(hli);
      const hp = percentile(hpx.ttft, 0.99) / percentile(hli.ttft, 0.99);
      // "Not worse" with room for the noise of a shared machine: within 10%.
      console.log(
        `hotspot: prefix mean TTFT ${fmt(hm)}x and p99 ${fmt(hp)}x of least-inflight's (target: not worse, <= 1.1x) ${hm <= 1.1 && hp <= 1.1 ? 'PASS' : 'MISS'}`,
      );
      errors += hli.errors + hpx.errors;
    }
    if (errors) console.log(`errors: ${errors} requests failed`);
  } finally {
    router.child.kill();
    agent.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}

const role = process.argv[2];
if (role) process.on('disconnect', () => process.exit(0));
if (role === 'engines') void enginesRole(Number(process.argv[3]));
else if (role === 'router') void routerRole(process.argv[3]!);
else await main();
