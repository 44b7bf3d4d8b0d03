// `npm run bench:console`: server time of the console's Overview for
// examples/large (280 nodes, 2,232 GPUs, 46 models), over real HTTP on
// loopback, read from the Server-Timing header the console sends (load =
// reading the files and building the fleet model and status report; render =
// the HTML). Three cases, each the median (and worst) of several requests:
//   first    — the first request of a fresh console (which built the model while starting,
//              timed apart as "start"): little JIT-compiled yet;
//   new data — a file changed (a tick landed): the model is built again;
//   steady   — nothing changed: the built model is reused, the page rendered.
// Target: under 200 ms server time, in every case. Then the same on the
// bench:plan mix at 10,000 nodes (bench/plan-mix.ts): under 1 s in every case.

import { cpSync, mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startConsole } from '../src/console/server.js';
import { generate, writeRepo } from './plan-mix.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const TARGET_MS = 200;
/** The Overview of the bench:plan mix at 10,000 nodes (bench/plan-mix.ts), in every case. */
const TARGET_10K_MS = 1000;

function timing(header: string | null): { load: number; render: number } {
  const get = (name: string) => Number(new RegExp(`${name};dur=([\\d.]+)`).exec(header ?? '')?.[1] ?? NaN);
  return { load: get('load'), render: get('render') };
}

async function overview(url: string): Promise<{ load: number; render: number; total: number; bytes: number }> {
  const res = await fetch(url + '/');
  const body = await res.text();
  if (res.status !== 200) throw new Error(`the Overview answered ${res.status}`);
  const t = timing(res.headers.get('server-timing'));
  return { ...t, total: t.load + t.render, bytes: Buffer.byteLength(body) };
}

function stats(xs: number[]): string {
  const s = [...xs].sort((a, b) => a - b);
  return `median ${s[Math.floor(s.length / 2)]!.toFixed(1)} ms, worst ${s[s.length - 1]!.toFixed(1)} ms`;
}

interface Case {
  name: string;
  /** A config repo to copy, or to write (the bench:plan mix). */
  fill: (dir: string) => void;
  target: number;
}

async function measure(c: Case): Promise<boolean> {
  const dir = mkdtempSync(join(tmpdir(), 'llmgw-bench-console-'));
  try {
    c.fill(dir);
    const starting = performance.now();
    const server = await startConsole({ dir, displayDir: c.name, listen: { host: '127.0.0.1', port: 0 } });
    const startMs = performance.now() - starting;
    try {
      const cold = await overview(server.url);
      const fresh: { load: number; render: number; total: number }[] = [];
      const steady: { load: number; render: number; total: number }[] = [];
      for (let i = 0; i < RUNS; i++) {
        // A tick landed: the snapshot has a new mtime, so everything is read and built again.
        const when = new Date(Date.now() + (i + 1) * 1000);
        utimesSync(join(dir, '.llmgw/observed.json'), when, when);
        fresh.push(await overview(server.url));
        steady.push(await overview(server.url));
      }
      const rows: [string, { load: number; render: number; total: number }[]][] = [
        ['first request', [cold]],
        ['new data (a tick landed)', fresh],
        ['steady (nothing changed)', steady],
      ];
      console.log(`bench:console — the Overview of ${c.name} (${(cold.bytes / 1024).toFixed(0)} KiB of HTML), server time from Server-Timing`);
      console.log(`${availableParallelism()} CPUs, load average ${loadavg()[0]!.toFixed(2)}, ${RUNS} requests per case\n`);
      console.log(`${'start (reads, builds, listens)'.padEnd(30)} ${startMs.toFixed(1)} ms wall, imports and schema compiles included`);
      for (const [name, xs] of rows) {
        console.log(
          `${name.padEnd(30)} total ${stats(xs.map((x) => x.total))}   (load ${stats(xs.map((x) => x.load))}; render ${stats(xs.map((x) => x.render))})`,
        );
      }
      const worst = Math.max(...rows.flatMap(([, xs]) => xs.map((x) => x.total)));
      console.log(`\nworst server time ${worst.toFixed(1)} ms: ${worst < c.target ? 'under' : 'OVER'} the ${c.target} ms target\n`);
      return worst < c.target;
    } finally {
      await server.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const cases: Case[] = [
  { name: 'examples/large', fill: (dir) => cpSync(join(ROOT, 'examples/large'), dir, { recursive: true }), target: TARGET_MS },
  { name: 'the bench:plan mix at 10,000 nodes', fill: (dir) => void writeRepo(dir, generate(10_000)), target: TARGET_10K_MS },
];
const met: boolean[] = [];
for (const c of cases) met.push(await measure(c));
console.log(`targets: examples/large under ${TARGET_MS} ms: ${met[0] ? 'ok' : 'MISSED'}; 10,000 nodes under ${TARGET_10K_MS} ms: ${met[1] ? 'ok' : 'MISSED'}`);
process.exitCode = met.every(Boolean) ? 0 : 1;
