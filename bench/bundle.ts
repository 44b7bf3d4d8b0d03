// `npm run bench:bundle`: the one-file node build (dist/llmgw-node.mjs) as a
// GPU node runs it. The reconciler pays `agent report`'s start once per node
// per tick, so that start is what is measured: a fresh `node llmgw-node.mjs
// agent report` with one request on stdin, from a copy of the file alone in an
// empty directory, over 8 fake GPUs and two storage paths. Target: under
// 150 ms wall. For context, the same command from the full package
// (dist/src/cli/main.js) and a bare `node -e 0` on the same machine.

import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { fakeGpuEnv, writeFakeGpus } from '../src/sim/fake-nvidia-smi.js';

const BUNDLE = fileURLToPath(new URL('../llmgw-node.mjs', import.meta.url));
const CLI = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const RUNS = Number(process.env.BENCH_RUNS ?? 21);
const TARGET_MS = 150;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}

// GNU time gives the child's CPU time too: on a shared machine the wall clock
// also measures the neighbours; CPU time measures the process itself.
const GNU_TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : null;

interface Variant {
  label: string;
  argv: string[];
  input: string;
  wall: number[];
  cpu: number[];
}

/**
 * Every variant once per round, in turn, so that a neighbour's burst of load
 * falls on all of them alike rather than on whichever ran at that moment.
 */
function measure(variants: Variant[], env: Record<string, string>, cwd: string): void {
  for (let i = 0; i < RUNS + 2; i++) {
    for (const v of variants) {
      const [cmd, args] = GNU_TIME ? [GNU_TIME, ['-f', 'cpu %U %S', process.execPath, ...v.argv]] : [process.execPath, v.argv];
      const t = performance.now();
      const r = spawnSync(cmd, args, { cwd, input: v.input, encoding: 'utf8', env });
      const ms = performance.now() - t;
      if (r.status !== 0) throw new Error(`${v.argv.join(' ')} exited ${String(r.status)}: ${r.stderr}`);
      // The first two rounds warm the page cache, as on a node that ran it last tick.
      if (i < 2) continue;
      v.wall.push(ms);
      const m = /^cpu ([\d.]+) ([\d.]+)$/m.exec(r.stderr);
      if (m) v.cpu.push((Number(m[1]) + Number(m[2])) * 1000);
    }
  }
}

function row(label: string, r: { wall: number[]; cpu: number[] }): string {
  const f = (n: number) => n.toFixed(0).padStart(7);
  const cpu = r.cpu.length ? f(median(r.cpu)) : '      -';
  return `${label.padEnd(40)}${f(median(r.wall))}${f(quantile(r.wall, 0.9))}${f(Math.min(...r.wall))}${cpu}`;
}

async function main(): Promise<void> {
  if (!existsSync(BUNDLE)) throw new Error(`${BUNDLE} is missing: npm run bundle`);
  const dir = mkdtempSync(join(tmpdir(), 'llmgw-bench-bundle-'));
  try {
    const opt = join(dir, 'opt');
    mkdirSync(opt);
    const file = join(opt, 'llmgw-node.mjs');
    copyFileSync(BUNDLE, file);
    const gpus = join(dir, 'gpus.csv');
    await writeFakeGpus(
      gpus,
      Array.from({ length: 8 }, () => ({ name: 'NVIDIA H100 80GB HBM3' })),
    );
    for (const p of ['models/org/a', 'lustre/org/b']) {
      mkdirSync(join(dir, p), { recursive: true });
      writeFileSync(join(dir, p, 'model.safetensors'), 'w');
    }
    const request = JSON.stringify({
      version: 1,
      node: 'bench',
      storage: [
        { path: join(dir, 'models'), kind: 'local' },
        { path: join(dir, 'lustre'), kind: 'shared', filer: 'lustre-a' },
      ],
      weights: ['org/a', 'org/b', 'org/c'],
    });
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', LLMGW_STATE_DIR: join(dir, 'state'), ...fakeGpuEnv(gpus) };

    const bytes = statSync(BUNDLE).size;
    const gz = gzipSync(readFileSync(BUNDLE)).length;
    process.stdout.write(`dist/llmgw-node.mjs: ${(bytes / 1024).toFixed(0)} KiB (${(gz / 1024).toFixed(0)} KiB gzipped)\n`);
    process.stdout.write(
      `${RUNS} rounds of each in turn, after 2 warm-up rounds; ${availableParallelism()} CPUs, load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}\n\n`,
    );
    process.stdout.write(`${'ms'.padEnd(40)}${'median'.padStart(7)}${'p90'.padStart(7)}${'min'.padStart(7)}${'cpu'.padStart(7)}\n`);
    const variant = (label: string, argv: string[], input = ''): Variant => ({ label, argv, input, wall: [], cpu: [] });
    const bundle = variant('bundle: agent report', [file, 'agent', 'report'], request);
    const variants = [
      bundle,
      variant('bundle: --version', [file, '--version']),
      variant('full package: llmgw agent report', [CLI, 'agent', 'report'], request),
      variant('bare node -e 0', ['-e', '0']),
    ];
    measure(variants, env, dir);
    for (const v of variants) process.stdout.write(row(v.label, v) + '\n');
    const m = median(bundle.wall);
    process.stdout.write(`\nagent report from the bundle: ${m.toFixed(0)} ms median, target < ${TARGET_MS} ms: ${m < TARGET_MS ? 'met' : 'NOT met'}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
