// `npm run bench:console`: server time of the console's Overview for
// examples/large (280 nodes, 2,232 GPUs, 46 models), over real HTTP on
// loopback, read from the Server-Timing header the console sends (load =
// reading the files and building the fleet model and status report; render =
// the HTML). Three cases, each the median (and worst) of several requests:
//   first    — the first request of a fresh console (which built the model while starting,
//              timed apart as "start"): little JIT-compiled yet;
//   new data — a file changed (a tick landed): the model is built again;
//   steady   — nothing changed: the built model is reused, the page rendered.
// Target: under 200 ms server time, in every case.

import { cpSync, mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startConsole } from '../src/console/server.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const TARGET_MS = 200;

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

const dir = mkdtempSync(join(tmpdir(), 'llmgw-bench-console-'));
cpSync(join(ROOT, 'examples/large'), dir, { recursive: true });
try {
  const starting = performance.now();
  const server = await startConsole({ dir, displayDir: 'examples/large', listen: { host: '127.0.0.1', port: 0 } });
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
    console.log(`bench:console — the Overview of examples/large (${(cold.bytes / 1024).toFixed(0)} KiB of HTML), server time from Server-Timing`);
    console.log(`${availableParallelism()} CPUs, load average ${loadavg()[0]!.toFixed(2)}, ${RUNS} requests per case\n`);
    console.log(`${'start (reads, builds, listens)'.padEnd(30)} ${startMs.toFixed(1)} ms wall, imports and schema compiles included`);
    for (const [name, xs] of rows) {
      console.log(
        `${name.padEnd(30)} total ${stats(xs.map((x) => x.total))}   (load ${stats(xs.map((x) => x.load))}; render ${stats(xs.map((x) => x.render))})`,
      );
    }
    const worst = Math.max(...rows.flatMap(([, xs]) => xs.map((x) => x.total)));
    console.log(`\nworst server time ${worst.toFixed(1)} ms: ${worst < TARGET_MS ? 'under' : 'OVER'} the ${TARGET_MS} ms target`);
    process.exitCode = worst < TARGET_MS ? 0 : 1;
  } finally {
    await server.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
