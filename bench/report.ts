// `npm run bench:report`: how long `llmgw report` takes on a year of hourly
// ticks (~8,800 commits; docs/commands.md#llmgw-report) — the whole command as a
// user runs it, a fresh process each time, over the whole year and over the
// default 7 days. The repo is written once with `git fast-import`
// (test/ledger/history-repo.ts): 16 nodes of 8 GPUs, 4 models whose replicas
// start, run, go idle and move, a node unreachable now and then, a person's
// commit to models.yaml every month, and a 3-day stop of the reconciler. Also
// what the first tick of a UTC date spends on STATUS.md's GPU-hours.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createGitRunner } from '../src/git/runner.js';
import { readClosedDays } from '../src/ledger/closed-days.js';
import { emptyState } from '../src/types/state.js';
import { TICK_EMAIL, writeHistory, type ScriptedCommit } from '../test/ledger/history-repo.js';

const CLI = fileURLToPath(new URL('../src/cli/main.js', import.meta.url));
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const HOURS = Number(process.env.BENCH_HOURS ?? 8_800);
const T0 = Date.parse('2026-01-01T00:00:00Z');
const at = (h: number) => new Date(T0 + h * 3_600_000).toISOString();
const NODES = Array.from({ length: 16 }, (_, i) => `gpu-${String(i + 1).padStart(2, '0')}`);
const MODELS = ['llama', 'qwen', 'mistral', 'phi'];

const cluster = `apiVersion: llmgw/v1
kind: Cluster
name: bench
ssh: { user: llmgw, knownHosts: /dev/null }
fabrics: [ib-a]
nodes:
  - { name: "gpu-[01-16]", fabric: ib-a }
routers:
  - { name: rt-1, host: 127.0.0.1 }
engines:
  vllm: { command: [vllm, serve, "{weightsPath}", --port, "{port}"] }
idle: { after: 6h }
`;
const models = (month: number) =>
  `apiVersion: llmgw/v1\nkind: Models\nmodels:\n` +
  MODELS.map((m, i) => `  - { name: ${m}, weights: org/${m}, engine: vllm, gpus: ${2 ** (i % 3)}, replicas: ${2 + ((month + i) % 3)} }\n`).join('');

function snapshot(h: number): string {
  const gpus = Array.from({ length: 8 }, (_, index) => ({ index, name: 'NVIDIA H100 80GB HBM3', healthy: !(index === 7 && h % 500 < 30) }));
  const nodes = NODES.map((name, n) => {
    const replicas = [0, 1].map((k) => {
      const model = MODELS[(n + k) % MODELS.length] ?? 'm';
      const age = (h + n * 7) % 48;
      return {
        id: `${model}-${n * 2 + k}`,
        model,
        gpus: k === 0 ? [0, 1] : [2, 3, 4, 5],
        state: age < 1 ? 'starting' : 'running',
        startedAt: at(h - age),
        port: 8000 + k,
        rank: 0,
      };
    });
    const report = { version: 1, gpus, replicas: n % 5 === h % 5 ? replicas.slice(0, 1) : replicas, storage: [], warnings: [] };
    if ((h + n) % 97 === 0) return { name, reachable: false, error: 'connect ETIMEDOUT', reason: 'timeout', unreachableSince: at(h), lastReport: report };
    return { name, reachable: true, report };
  });
  const lastUsed = Object.fromEntries(NODES.flatMap((_, n) => (n % 3 === 0 ? [] : [[`${MODELS[n % MODELS.length] ?? 'm'}-${n * 2}`, at(h - (n % 4))]])));
  return JSON.stringify({
    version: 1,
    observedAt: at(h),
    nodes,
    routers: [{ name: 'rt-1', reachable: true, report: { version: 1, startedAt: at(h - 200), lastUsed } }],
  });
}

function history(): ScriptedCommit[] {
  const state = JSON.stringify(emptyState());
  const out: ScriptedCommit[] = [
    { time: at(-1), email: 'ops@example.com', message: 'the fleet', files: { 'cluster.yaml': cluster, 'models.yaml': models(0) } },
  ];
  for (let h = 0; h < HOURS; h++) {
    if (h > 4000 && h < 4072) continue; // the reconciler stopped for three days
    if (h % 730 === 365) out.push({ time: at(h - 0.5), email: 'ops@example.com', message: 'scale', files: { 'models.yaml': models(Math.floor(h / 730)) } });
    out.push({
      time: at(h),
      email: TICK_EMAIL,
      message: 'llmgw: status',
      files: { 'STATUS.md': `# ${h}\n`, '.llmgw/observed.json': snapshot(h), '.llmgw/state.json': state },
    });
  }
  return out;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
}

function runs(repo: string, args: string[]): { wall: number[]; out: string } {
  const wall: number[] = [];
  let out = '';
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    const r = spawnSync(process.execPath, [CLI, 'report', '--repo', repo, '--now', at(HOURS), ...args], { encoding: 'utf8', maxBuffer: 1 << 26 });
    wall.push(performance.now() - t);
    if (r.status !== 0) throw new Error(`llmgw report exited ${String(r.status)}: ${r.stderr}`);
    out = r.stdout;
  }
  return { wall, out };
}

const root = mkdtempSync(join(tmpdir(), 'llmgw-bench-report-'));
try {
  const repo = join(root, 'repo');
  const commits = history();
  const t = performance.now();
  writeHistory(repo, commits);
  const made = performance.now() - t;
  const year = runs(repo, ['--since', `${Math.ceil(HOURS / 24)}d`, '--format', 'csv']);
  const week = runs(repo, ['--since', '7d', '--format', 'csv']);
  // What the first tick of a UTC date adds for STATUS.md's GPU-hours (src/ledger/closed-days.ts), in process.
  const closed: number[] = [];
  let closedFleet = '';
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    const { hours } = await readClosedDays(createGitRunner(repo, { PATH: process.env.PATH, HOME: root }), at(HOURS));
    closed.push(performance.now() - t0);
    closedFleet = hours === null ? 'none' : `yesterday ${hours.yesterday.fleet.serving.toFixed(2)} serving, ${hours.yesterday.fleet.idle.toFixed(2)} idle`;
  }
  const f = (xs: number[]) => `median ${median(xs).toFixed(0)} ms (min ${Math.min(...xs).toFixed(0)}, max ${Math.max(...xs).toFixed(0)})`;
  const lines = [
    `llmgw report on ${commits.length} commits (${commits.filter((c) => c.email === TICK_EMAIL).length} ticks, 16 nodes x 8 GPUs, 4 models), written in ${(made / 1000).toFixed(1)} s; ${RUNS} runs each`,
    `  --since ${Math.ceil(HOURS / 24)}d (every tick): ${f(year.wall)}`,
    `  --since 7d:                 ${f(week.wall)}`,
    `  closed days for STATUS.md (the first tick of a UTC date, in process): ${f(closed)}; ${closedFleet}`,
    '',
    'the year, fleet rows:',
    ...year.out.split('\n').filter((l) => l.startsWith('*,')),
    '',
    `load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} on ${availableParallelism()} cores (wall times grow with it)`,
  ];
  process.stdout.write(lines.join('\n') + '\n');
  if (process.env.BENCH_KEEP) {
    process.stdout.write(`kept ${repo}\n`);
    process.exit(0);
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
