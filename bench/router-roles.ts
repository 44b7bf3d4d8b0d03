// The child processes of bench:router, each its own process so that its CPU and
// memory are its own: engines, routers, and the load generators.

import http from 'node:http';
import net from 'node:net';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';

export const BODY = Buffer.from(JSON.stringify({ model: 'bench', messages: [{ role: 'user', content: 'Say hi in five words.' }], max_tokens: 16 }));
const ANSWER = Buffer.from(
  JSON.stringify({
    id: 'chatcmpl-bench',
    object: 'chat.completion',
    created: 1764403200,
    model: 'bench',
    choices: [{ index: 0, message: { role: 'assistant', content: 'Hi there, nice to meet!' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 },
  }),
);

const BIG_ANSWER = Buffer.alloc(4 * 1024 * 1024, 'x');

export interface LoadJob {
  kind: 'rate' | 'saturate';
  ports: number[];
  seconds: number;
  rate: number;
  connections: number;
}
export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  latencies: Float64Array;
}

/** Engines that answer every request at once with a fixed small answer. */
export async function engines(count: number): Promise<void> {
  const ports: number[] = [];
  for (let i = 0; i < count; i++) {
    const server = http.createServer((req, res) => {
      req.on('data', () => undefined);
      req.on('end', () => {
        // A large answer (the abuse phase's slow readers ask for it and never read it).
        if (req.url === '/v1/completions') {
          res.writeHead(200, ['Content-Type', 'application/json', 'Content-Length', String(BIG_ANSWER.length)]);
          return void res.end(BIG_ANSWER);
        }
        res.writeHead(200, ['Content-Type', 'application/json', 'Content-Length', String(ANSWER.length)]);
        res.end(ANSWER);
      });
    });
    server.keepAliveTimeout = 65_000;
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', 4096, r));
    ports.push((server.address() as { port: number }).port);
  }
  process.send!({ ports });
}

/** An engine whose every answer is a stream that sends one event and then stays open until the client leaves. */
export async function streamEngine(): Promise<void> {
  const server = http.createServer((req, res) => {
    req.on('data', () => undefined);
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write('data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"…"}}]}\n\n');
    });
  });
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 0;
  server.requestTimeout = 0;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', 4096, r));
  process.send!({ port: (server.address() as { port: number }).port });
}

export async function router(socket: string, options: string): Promise<void> {
  const { startRouter } = await import('../src/router/server.js');
  // As the router command does (src/cli/commands/router.ts): the bench measures the shipped process.
  (await import('../src/router/heap.js')).tightenHeapGrowth();
  const o = JSON.parse(options) as { metrics?: boolean; maxBufferedBytes?: number };
  const r = await startRouter({
    listen: { host: '127.0.0.1', port: 0 },
    adminSocket: socket,
    ...(o.metrics ? { metrics: { host: '127.0.0.1', port: 0 } } : {}),
    ...(o.maxBufferedBytes ? { maxBufferedBytes: o.maxBufferedBytes } : {}),
  });
  if (process.env['LLMGW_BENCH_MEMLOG']) {
    const lag = monitorEventLoopDelay({ resolution: 10 });
    lag.enable();
    let cpu = process.cpuUsage();
    setInterval(() => {
      const m = process.memoryUsage();
      const mb = (x: number) => (x / 1048576).toFixed(0);
      const used = process.cpuUsage(cpu);
      cpu = process.cpuUsage();
      process.stderr.write(
        `  [router ${process.pid}] rss ${mb(m.rss)} heapTotal ${mb(m.heapTotal)} heapUsed ${mb(m.heapUsed)} external ${mb(m.external)} arrayBuffers ${mb(m.arrayBuffers)} MiB; cpu ${((used.user + used.system) / 20_000).toFixed(0)}%; loop delay p99 ${(lag.percentile(99) / 1e6).toFixed(0)} max ${(lag.max / 1e6).toFixed(0)} ms\n`,
      );
      lag.reset();
    }, 2000).unref();
  }
  process.send!({ port: r.port, metricsPort: r.metricsPort });
}

/** The Node load generator: open-loop fixed rate, or closed-loop saturation. */
export function load(): void {
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
  if (!agent) agents.set(key, (agent = new http.Agent({ keepAlive: true, maxSockets: Math.max(256, job.connections), noDelay: true })));
  return agent;
}

async function runLoad(job: LoadJob): Promise<LoadResult> {
  const agent = agentFor(job);
  const latencies = new Float64Array(Math.ceil(job.seconds * (job.kind === 'saturate' ? 40_000 : job.rate * 1.5)) + 16);
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
    const done = (): void => {
      if (++finished === total) resolve();
    };
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

/** Open `count` streams through the router (batches, so the listen backlog never overflows); hold them until told. */
export function streams(): void {
  const sockets: net.Socket[] = [];
  process.on('message', (m: { open?: { port: number; count: number }; release?: true }) => {
    if (m.release) {
      for (const s of sockets.splice(0)) s.destroy();
      return void process.send!({ released: true });
    }
    if (!m.open) return;
    const { port, count } = m.open;
    const body = '{"model":"stream","stream":true,"messages":[{"role":"user","content":"hold"}]}';
    const request = `POST /v1/chat/completions HTTP/1.1\r\nHost: r\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    let established = 0;
    let failed = 0;
    const one = (): Promise<void> =>
      new Promise((resolve) => {
        const s = net.connect(port, '127.0.0.1', () => s.write(request));
        s.setNoDelay(true);
        let seen = '';
        const onData = (b: Buffer): void => {
          seen += b.toString('latin1');
          if (seen.includes('data: ')) {
            s.off('data', onData);
            if (seen.startsWith('HTTP/1.1 200')) established++;
            else failed++;
            resolve();
          }
        };
        s.on('data', onData);
        s.on('error', () => undefined);
        s.once('close', () => {
          if (!seen.includes('data: ')) {
            failed++;
            resolve();
          }
        });
        sockets.push(s);
      });
    void (async () => {
      for (let i = 0; i < count; i += 250) await Promise.all(Array.from({ length: Math.min(250, count - i) }, one));
      process.send!({ established, failed });
    })();
  });
  process.send!({ ready: true });
}

/**
 * `count` slow clients, each sending a large body (declared 8 MiB) a piece at a
 * time and never finishing; a client the router refuses connects again at once,
 * so the pressure stays on for the whole phase.
 */
export interface AbuseJob {
  port: number;
  count: number;
  piece: number;
  everyMs: number;
  /** Connections that each pipeline PIPELINED requests at once, read the answers, and do it again. */
  pipeliners: number;
  /** Connections that ask for a large answer and never read it. */
  slowReaders: number;
}

const PIPELINED = 400;

export function abuse(): void {
  let stop = false;
  const stats = { refused: 0, connections: 0, bytes: 0, pipelined: 0, pipelinedRefused: 0, slowCut: 0 };
  const sockets = new Set<net.Socket>();
  process.on('message', (m: { start?: AbuseJob; stop?: true }) => {
    if (m.stop) {
      stop = true;
      for (const s of sockets) s.destroy();
      return void process.send!(stats);
    }
    if (!m.start) return;
    const { port, count, piece, everyMs, pipeliners, slowReaders } = m.start;
    const small = BODY.toString('latin1');
    const one = `POST /v1/chat/completions HTTP/1.1\r\nHost: r\r\nContent-Type: application/json\r\nContent-Length: ${BODY.length}\r\n\r\n${small}`;
    const burst = one.repeat(PIPELINED);
    const pipeliner = (): void => {
      if (stop) return;
      const s = net.connect(port, '127.0.0.1', () => s.write(burst));
      sockets.add(s);
      let seen = 0;
      s.on('data', (b: Buffer) => {
        const text = b.toString('latin1');
        for (let i = text.indexOf('HTTP/1.1 '); i >= 0; i = text.indexOf('HTTP/1.1 ', i + 1)) {
          seen++;
          stats.pipelined++;
          if (text.startsWith('HTTP/1.1 429', i)) stats.pipelinedRefused++;
        }
        if (seen >= PIPELINED) s.destroy();
      });
      s.on('error', () => undefined);
      s.on('close', () => {
        sockets.delete(s);
        setTimeout(pipeliner, 50);
      });
    };
    const slowReader = (): void => {
      if (stop) return;
      const s = net.connect(port, '127.0.0.1', () => s.write(one.replace('/v1/chat/completions', '/v1/completions')));
      sockets.add(s);
      s.pause(); // never reads its answer
      s.on('error', () => undefined);
      s.on('close', () => {
        stats.slowCut++;
        sockets.delete(s);
        setTimeout(slowReader, 100);
      });
    };
    for (let i = 0; i < pipeliners; i++) setTimeout(pipeliner, i * 10);
    for (let i = 0; i < slowReaders; i++) setTimeout(slowReader, i * 10);
    const head = `POST /v1/chat/completions HTTP/1.1\r\nHost: r\r\nContent-Type: application/json\r\nContent-Length: ${8 * 1024 * 1024}\r\n\r\n{"model":"bench","pad":"`;
    const chunk = Buffer.alloc(piece, 'x');
    const client = (): void => {
      if (stop) return;
      stats.connections++;
      const s = net.connect(port, '127.0.0.1', () => {
        s.write(head);
        timer = setInterval(() => {
          if (s.writable) {
            s.write(chunk);
            stats.bytes += piece;
          }
        }, everyMs);
      });
      let timer: NodeJS.Timeout | undefined;
      sockets.add(s);
      s.on('data', (b: Buffer) => {
        if (b.toString('latin1', 0, 12) === 'HTTP/1.1 503') stats.refused++;
      });
      s.on('error', () => undefined);
      s.on('close', () => {
        clearInterval(timer);
        sockets.delete(s);
        setTimeout(client, 100);
      });
    };
    // Spread the starts over a second so the router's accept queue never overflows.
    for (let i = 0; i < count; i++) setTimeout(client, Math.floor((i * 1000) / count));
    process.send!({ started: true });
  });
  process.send!({ ready: true });
}
